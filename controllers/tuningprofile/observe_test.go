package tuningprofile

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/internal/tuning"
	"github.com/benchwright/benchwright/test/wrappers"
)

// logs serves fixed logs by pod and records whether the tail was asked for.
type logs struct {
	byPod  map[string]string
	tailed bool
}

func (l *logs) ReadLog(_ context.Context, _, pod, _ string) ([]byte, error) {
	s, ok := l.byPod[pod]
	if !ok {
		return nil, errors.New("no such pod")
	}
	return []byte(s), nil
}

func (l *logs) ReadLogTail(ctx context.Context, ns, pod, c string, _ int64) ([]byte, error) {
	l.tailed = true
	return l.ReadLog(ctx, ns, pod, c)
}

// pod is a tuner pod on node n1 of generation gen, in phase.
func pod(name string, phase corev1.PodPhase, gen string) *wrappers.PodWrapper {
	return wrappers.MakePod(name, "ns").Annotations(map[string]string{generationAnnotation: gen}).NodeName("n1").Phase(phase)
}

func line(gen int64) string {
	return tuning.ReportLine(tuning.Report{Node: "n1", Profile: "mpi-latency", Generation: gen, Phase: tuning.PhaseApplied, Tuned: true}) + "\n"
}

func TestReadReport(t *testing.T) {
	unschedulable := pod("unsched", corev1.PodPending, "3").Unschedulable("0/3 nodes are available").Obj()
	crashing := pod("crash", corev1.PodRunning, "3").ContainerStatus(corev1.ContainerStatus{Name: container, RestartCount: 4,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}).Obj()
	l := &logs{byPod: map[string]string{
		"current": "starting\n" + line(2) + line(3),
		"old":     line(2),
		"silent":  "benchwright-tuner: applying 3 setting(s)\n",
		"crash":   "",
	}}
	r := &Reconciler{Logs: l}
	p := newProfile()
	for _, tc := range []struct {
		pod        *corev1.Pod
		report     bool
		notRunning bool
		waiting    string
	}{
		{pod: nil, waiting: "no tuner pod"},
		{pod: pod("starting", corev1.PodPending, "3").Obj(), waiting: "is starting"},
		{pod: unschedulable, notRunning: true, waiting: "0/3 nodes are available"},
		{pod: pod("failed", corev1.PodFailed, "3").Obj(), notRunning: true, waiting: "is Failed"},
		{pod: pod("current", corev1.PodRunning, "3").Obj(), report: true},
		{pod: pod("old", corev1.PodRunning, "2").Obj(), waiting: "reports generation 2; waiting for generation 3"},
		{pod: pod("silent", corev1.PodRunning, "3").Obj(), waiting: "has not reported yet"},
		{pod: crashing, notRunning: true, waiting: "CrashLoopBackOff after 4 restart(s)"},
		{pod: pod("gone", corev1.PodRunning, "3").Obj(), waiting: "cannot be read"},
	} {
		s := nodeState{node: "n1", pod: tc.pod}
		r.readReport(context.Background(), p, &s)
		if (s.report != nil) != tc.report || s.notRunning != tc.notRunning || !strings.Contains(s.waiting, tc.waiting) {
			t.Errorf("pod %v: report %v notRunning %v waiting %q", tc.pod != nil, s.report, s.notRunning, s.waiting)
		}
	}
	if !l.tailed {
		t.Error("a log reader that can read the tail was asked for the whole log")
	}
}

func TestBetterPodPrefersTheCurrentGeneration(t *testing.T) {
	old, cur := pod("old", corev1.PodRunning, "2").CreationTimestamp(time.Now()).Obj(), pod("cur", corev1.PodRunning, "3").Obj()
	if !better(cur, old, 3) || better(old, cur, 3) {
		t.Error("the current generation's pod should win over a newer old one")
	}
}
