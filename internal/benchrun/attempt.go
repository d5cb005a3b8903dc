package benchrun

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// AttemptLabel holds the attempt of a repetition on its Jobs or MPIJob: 0,
// then one more for each retry.
const AttemptLabel = "benchwright.io/attempt"

// Retries counts the attempts beyond the first over all repetitions of a
// benchmark's Jobs or MPIJobs.
func Retries[T metav1.Object](jobs []T) int32 {
	latest := map[int]int{}
	for _, j := range jobs {
		rep := LabelInt(j, benchv1.RepetitionLabel)
		latest[rep] = max(latest[rep], LabelInt(j, AttemptLabel))
	}
	var n int32
	for _, a := range latest {
		n += int32(max(a, 0))
	}
	return n
}

// AttemptNote is " (retry n)" for a retry, nothing for a first attempt.
func AttemptNote(attempt int) string {
	if attempt == 0 {
		return ""
	}
	return fmt.Sprintf(" (retry %d)", attempt)
}

// Starting records that an attempt of repetition rep (of total) was created:
// on the first, the run's startTime and artifactURI; Running False Starting.
// It looks again once the start timeout is over.
func (e *Env) Starting(obj client.Object, kind string, st *benchv1.BenchmarkStatusCommon, rep int, total int32, attempt int, t benchv1.Timeouts) ctrl.Result {
	if st.StartTime == nil {
		now := MetaTime(e.Now())
		st.StartTime = &now
	}
	if st.ArtifactURI == "" {
		st.ArtifactURI = e.Run(obj, kind, st.StartTime).URI()
	}
	SetCondition(st, obj.GetGeneration(), benchv1.ConditionRunning, metav1.ConditionFalse, benchv1.ReasonStarting,
		fmt.Sprintf("repetition %d/%d is starting%s", rep+1, total, AttemptNote(attempt)))
	return ctrl.Result{RequeueAfter: StartTimeout(t) + time.Second}
}

// Running keeps a running repetition rep (of total), started at started,
// within the run timeout: past it, a Timeout Outcome; else Running True with
// "repetition n/total is running" and note, looking again once the timeout
// is over.
func (e *Env) Running(obj client.Object, st *benchv1.BenchmarkStatusCommon, rep int, total int32, started time.Time, t benchv1.Timeouts, note string) (ctrl.Result, error) {
	now, deadline := e.Now(), started.Add(RunTimeout(t))
	if now.After(deadline) {
		return ctrl.Result{}, Fail(benchv1.ReasonTimeout, fmt.Sprintf("repetition %d/%d ran longer than %s (spec.timeouts.run)", rep+1, total, RunTimeout(t)))
	}
	SetCondition(st, obj.GetGeneration(), benchv1.ConditionRunning, metav1.ConditionTrue, benchv1.ReasonRunning,
		fmt.Sprintf("repetition %d/%d is running%s", rep+1, total, note))
	return ctrl.Result{RequeueAfter: deadline.Sub(now) + time.Second}, nil
}

// Lost is attempt Attempt of repetition Rep (of Total) whose pods the cluster
// took away, and why.
type Lost struct {
	Rep, Attempt      int
	Total, MaxRetries int32
	Why               string
}

// Retry starts the next attempt of a lost repetition until MaxRetries is used
// up (then a RetriesExhausted Outcome): stop, when set, first stops what is
// left of the lost attempt; start creates the next attempt. Once started, the
// retry is counted and Running is False Evicted.
func (e *Env) Retry(obj client.Object, st *benchv1.BenchmarkStatusCommon, l Lost, stop func() error, start func(attempt int) (ctrl.Result, error)) (ctrl.Result, error) {
	if l.Attempt >= int(l.MaxRetries) {
		return ctrl.Result{}, Fail(benchv1.ReasonRetriesExhausted, fmt.Sprintf(
			"repetition %d/%d was lost %d time(s), spec.maxRetries is %d; last: %s", l.Rep+1, l.Total, l.Attempt+1, l.MaxRetries, l.Why))
	}
	if stop != nil {
		if err := stop(); err != nil {
			return ctrl.Result{}, err
		}
	}
	e.Recorder.Eventf(obj, corev1.EventTypeWarning, benchv1.ReasonEvicted, "Repetition %d/%d lost (%s); retrying (%d of %d)", l.Rep+1, l.Total, l.Why, l.Attempt+1, l.MaxRetries)
	res, err := start(l.Attempt + 1)
	if err == nil {
		st.Retries++
		SetCondition(st, obj.GetGeneration(), benchv1.ConditionRunning, metav1.ConditionFalse, benchv1.ReasonEvicted,
			fmt.Sprintf("repetition %d/%d is starting again (retry %d of %d) after: %s", l.Rep+1, l.Total, l.Attempt+1, l.MaxRetries, l.Why))
	}
	return res, err
}
