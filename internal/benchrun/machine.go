package benchrun

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/conditions"
	"github.com/benchwright/benchwright/internal/crashpoint"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/runstore"
	"github.com/benchwright/benchwright/internal/sampler"
	"github.com/benchwright/benchwright/internal/statusupdate"
)

// machine is one reconcile of one benchmark: the Env (whose Recorder holds
// the events until the status is written), the kind's driver, and the
// benchmark's common spec and status.
type machine struct {
	Env
	d    Driver
	b    Benchmark
	spec *benchv1.BenchmarkSpecCommon
	st   *benchv1.BenchmarkStatusCommon
	kind string
	// collected: the status holds what a tool's output said.
	collected bool
}

// newMachine is one reconcile of the benchmark d drives, over a copy of e.
func newMachine(e *Env, d Driver) *machine {
	b := d.Benchmark()
	return &machine{Env: *e, d: d, b: b, spec: b.BenchmarkSpec(), st: b.BenchmarkStatus(), kind: d.Kind()}
}

// advance moves the benchmark one step: before the first repetition, wait
// for the pool, the tuning and the queue; then look at the current
// repetition's latest attempt and start, wait, fail, retry or collect it.
func (m *machine) advance(ctx context.Context) (ctrl.Result, error) {
	if err := m.d.Admit(); err != nil {
		return ctrl.Result{}, err
	}
	if held, res, err := m.hold(ctx); held {
		return res, err
	}
	if err := m.d.EnsureInputs(ctx); err != nil {
		return ctrl.Result{}, err
	}
	rep := int(m.st.CompletedRepetitions)
	a, err := m.d.Observe(ctx, rep)
	if err != nil {
		return ctrl.Result{}, err
	}
	m.st.Retries = a.Retries
	if a.Number < 0 || a.Partial {
		return m.start(ctx, rep, max(a.Number, 0))
	}
	switch a.Phase {
	case children.PhaseStarting:
		return m.starting(ctx, a)
	case children.PhaseRunning:
		return m.running(a)
	case children.PhaseDeadline:
		return ctrl.Result{}, outcome.Fail(benchv1.ReasonTimeout, fmt.Sprintf("repetition %d/%d: %s", rep+1, m.spec.Repetitions, a.Why))
	case children.PhaseToolFailed:
		return m.failure(ctx, a)
	case children.PhaseLost:
		return m.retry(ctx, a)
	}
	return m.collect(ctx, a)
}

// start creates an attempt of repetition rep: on the first, the run's
// startTime and artifactURI; Running False Starting. It looks again once
// the start timeout is over.
func (m *machine) start(ctx context.Context, rep, attempt int) (ctrl.Result, error) {
	// Creating children from a stale view could start a repetition twice, or
	// again after the benchmark failed: when the cache may not show our last
	// status write yet, check the benchmark is as read.
	if writes.behind(m.b) {
		if stale, err := m.Kit().Stale(ctx, m.b); err != nil || stale {
			if err == nil {
				err = ErrStale
			}
			return ctrl.Result{}, err
		}
		writes.forget(m.b.GetUID())
	}
	created, err := m.d.CreateAttempt(ctx, rep, attempt)
	for _, c := range created {
		m.Recorder.Eventf(m.b, corev1.EventTypeNormal, "Created", "Created %s %s for repetition %d/%d%s",
			m.kindOf(c), c.GetName(), rep+1, m.spec.Repetitions, children.AttemptNote(attempt))
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if m.st.StartTime == nil {
		now := statusupdate.MetaTime(m.Now())
		m.st.StartTime = &now
	}
	if m.st.ArtifactURI == "" {
		m.st.ArtifactURI = m.run().URI()
	}
	m.setRunning(metav1.ConditionFalse, benchv1.ReasonStarting,
		fmt.Sprintf("repetition %d/%d is starting%s", rep+1, m.spec.Repetitions, children.AttemptNote(attempt)))
	return ctrl.Result{RequeueAfter: StartTimeout(m.spec.Timeouts) + time.Second}, nil
}

// starting waits for a created attempt to run, until the start timeout.
func (m *machine) starting(ctx context.Context, a children.Attempt) (ctrl.Result, error) {
	limit := StartTimeout(m.spec.Timeouts)
	now, deadline := m.Now(), a.Created.Add(limit)
	recheck := deadline.Sub(now) + time.Second
	if a.Unmade && now.Sub(a.Created) >= refusalGrace && m.APIReader != nil {
		refusal, err := m.refusal(ctx, a)
		if err != nil {
			return ctrl.Result{}, err
		}
		if forbidden(refusal) {
			return ctrl.Result{}, outcome.Fail(benchv1.ReasonPodsForbidden, fmt.Sprintf("repetition %d/%d: %s", a.Rep+1, m.spec.Repetitions, refusal))
		}
		if refusal != "" {
			a.Why, recheck = refusal, min(recheck, refusalRecheck)
		}
	} else if a.Unmade && m.APIReader != nil {
		recheck = min(recheck, refusalGrace-now.Sub(a.Created)+time.Second)
	}
	if now.After(deadline) {
		msg := fmt.Sprintf("repetition %d/%d did not start within %s (spec.timeouts.start): %s", a.Rep+1, m.spec.Repetitions, limit, a.Why)
		if a.Pending != "" {
			msg = fmt.Sprintf("repetition %d/%d: %s within %s (spec.timeouts.start): %s", a.Rep+1, m.spec.Repetitions, a.Pending, limit, a.Why)
		}
		return ctrl.Result{}, outcome.Fail(benchv1.ReasonTimeout, msg)
	}
	reason := benchv1.ReasonStarting
	if a.Waiting != "" {
		reason = a.Waiting
	}
	m.setRunning(metav1.ConditionFalse, reason, fmt.Sprintf("repetition %d/%d is starting: %s", a.Rep+1, m.spec.Repetitions, a.Why))
	return ctrl.Result{RequeueAfter: recheck}, nil
}

// running keeps a running attempt within the run timeout: past it, a
// Timeout Outcome; else Running True, looking again once the timeout is over.
func (m *machine) running(a children.Attempt) (ctrl.Result, error) {
	limit := RunTimeout(m.spec.Timeouts)
	now, deadline := m.Now(), a.Started.Add(limit)
	if now.After(deadline) {
		return ctrl.Result{}, outcome.Fail(benchv1.ReasonTimeout, fmt.Sprintf("repetition %d/%d ran longer than %s (spec.timeouts.run)", a.Rep+1, m.spec.Repetitions, limit))
	}
	note := a.Note
	if note == "" {
		note = children.AttemptNote(a.Number)
	}
	m.setRunning(metav1.ConditionTrue, benchv1.ReasonRunning, fmt.Sprintf("repetition %d/%d is running%s", a.Rep+1, m.spec.Repetitions, note))
	return ctrl.Result{RequeueAfter: deadline.Sub(now) + time.Second}, nil
}

// retry starts the next attempt of a lost repetition until spec.maxRetries
// is used up (then a RetriesExhausted Outcome), after stopping what is left
// of the lost one. Once started, the retry is counted and Running is False
// Evicted.
func (m *machine) retry(ctx context.Context, a children.Attempt) (ctrl.Result, error) {
	total, maxRetries := m.spec.Repetitions, m.spec.MaxRetries
	if a.GoneJob != "" {
		took, err := m.whatTook(ctx, a)
		if err != nil {
			return ctrl.Result{}, err
		}
		a.Why += ": " + took
	}
	if a.Number >= int(maxRetries) {
		return ctrl.Result{}, outcome.Fail(benchv1.ReasonRetriesExhausted, fmt.Sprintf(
			"repetition %d/%d was lost %d time(s), spec.maxRetries is %d; last: %s", a.Rep+1, total, a.Number+1, maxRetries, a.Why))
	}
	if err := m.d.StopAttempt(ctx, a); err != nil {
		return ctrl.Result{}, err
	}
	m.Recorder.Eventf(m.b, corev1.EventTypeWarning, benchv1.ReasonEvicted, "Repetition %d/%d lost (%s); retrying (%d of %d)", a.Rep+1, total, a.Why, a.Number+1, maxRetries)
	res, err := m.start(ctx, a.Rep, a.Number+1)
	if err == nil {
		m.st.Retries++
		m.setRunning(metav1.ConditionFalse, benchv1.ReasonEvicted,
			fmt.Sprintf("repetition %d/%d is starting again (retry %d of %d) after: %s", a.Rep+1, total, a.Number+1, maxRetries, a.Why))
	}
	return res, err
}

// collect has the driver read and parse a finished attempt's output (a few
// benchmarks at a time: see turnsToCollect), stores its samples and summaries,
// and starts the next repetition or ends the benchmark.
func (m *machine) collect(ctx context.Context, a children.Attempt) (ctrl.Result, error) {
	release, ok := collecting.take(m.b, m.collectWake)
	if !ok {
		return ctrl.Result{RequeueAfter: collectRetry}, nil
	}
	defer release()
	c, err := m.d.Collect(ctx, a)
	if err != nil {
		return ctrl.Result{}, err
	}
	crashpoint.Reach(crashpoint.Collected)
	for _, w := range c.Warnings {
		m.Recorder.Eventf(m.b, corev1.EventTypeWarning, "MonitoringIncomplete", "Repetition %d/%d: %s", a.Rep+1, m.spec.Repetitions, w)
	}
	// The sampler's summaries are per device and interface.
	c.Options.GroupBy = append(c.Options.GroupBy, sampler.GroupBy...)
	summaries, err := m.run().AddRepetition(ctx, a.Rep, c.Samples, c.Nodes, c.Options)
	if err != nil {
		return ctrl.Result{}, err
	}
	m.st.CompletedRepetitions = int32(a.Rep + 1)
	m.collected = true
	RecordNodes(m.st, c.Nodes)
	note := m.d.Record(summaries)
	if m.st.CompletedRepetitions < m.spec.Repetitions {
		m.Recorder.Eventf(m.b, corev1.EventTypeNormal, "RepetitionCompleted", "Repetition %d/%d completed%s", a.Rep+1, m.spec.Repetitions, note)
		return m.start(ctx, a.Rep+1, 0)
	}
	// The last repetition's figures go in the Succeeded event: one event less.
	return ctrl.Result{}, m.succeed(ctx, summaries, note)
}

// failure has the driver read what a failed attempt's tool said and store
// its log, in a turn to collect like any output: the reading is bounded by
// the same budget (a log of up to podlogs.MaxLogBytes), whether the tool
// succeeded or not, so that many tools failing at once cannot exhaust the
// manager.
func (m *machine) failure(ctx context.Context, a children.Attempt) (ctrl.Result, error) {
	release, ok := collecting.take(m.b, m.collectWake)
	if !ok {
		return ctrl.Result{RequeueAfter: collectRetry}, nil
	}
	defer release()
	return ctrl.Result{}, m.d.Failure(ctx, a)
}

// run is the benchmark's place in the artifact store.
func (m *machine) run() runstore.Run { return m.Run(m.b, m.kind, m.st.StartTime) }

// setRunning sets the Running condition.
func (m *machine) setRunning(status metav1.ConditionStatus, reason, message string) {
	m.setCondition(benchv1.ConditionRunning, status, reason, message)
}

// setCondition sets one condition for the benchmark's generation.
func (m *machine) setCondition(typ string, status metav1.ConditionStatus, reason, message string) {
	conditions.Set(m.b, typ, status, reason, message)
}

// Collect runs the state machine's collect step alone, for an attempt d
// observed finished: a driver's tests check with it what its Collect feeds
// the store and the status.
func (e *Env) Collect(ctx context.Context, d Driver, a children.Attempt) (ctrl.Result, error) {
	return newMachine(e, d).collect(ctx, a)
}
