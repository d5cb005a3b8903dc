package benchrun

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/test/wrappers"
)

// A benchmark that finds every turn taken is not kept waiting in its
// worker: it gets in line once, and a freed turn wakes the first in line.
func TestTurnsToCollectWakeTheFirstInLine(t *testing.T) {
	b := func(name string) *benchv1.StorageBenchmark {
		return &benchv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)}}
	}
	turns := newTurnsToCollect(2)
	wake := make(chan event.GenericEvent, 4)
	r1, ok1 := turns.take(b("a"), wake)
	r2, ok2 := turns.take(b("b"), wake)
	if !ok1 || !ok2 {
		t.Fatal("the two free turns were not given")
	}
	for _, name := range []string{"c", "d", "c"} { // c twice: in line once
		if _, ok := turns.take(b(name), wake); ok {
			t.Fatalf("%s got a third turn", name)
		}
	}
	if len(wake) != 0 {
		t.Fatalf("%d wake-up(s) before any turn freed", len(wake))
	}
	r1()
	r1() // a second release of one turn frees nothing more
	if got := (<-wake).Object.GetName(); got != "c" {
		t.Fatalf("woke %s, want c (first in line)", got)
	}
	if len(wake) != 0 {
		t.Fatal("one freed turn woke more than one benchmark")
	}
	r3, ok := turns.take(b("c"), wake)
	if !ok {
		t.Fatal("the woken benchmark did not get the freed turn")
	}
	if _, ok := turns.take(b("e"), wake); ok {
		t.Fatal("a turn was given twice")
	}
	r2()
	if got := (<-wake).Object.GetName(); got != "d" {
		t.Fatalf("woke %s, want d", got)
	}
	r3()
	if got := (<-wake).Object.GetName(); got != "e" {
		t.Fatalf("woke %s, want e", got)
	}
}

// A wake-up that cannot be delivered (the channel full) goes to the next in
// line, and the one skipped still has its own retry.
func TestTurnsToCollectSkipAFullChannel(t *testing.T) {
	turns := newTurnsToCollect(1)
	full := make(chan event.GenericEvent) // never read: always full
	open := make(chan event.GenericEvent, 1)
	obj := func(name string) *benchv1.MPIBenchmark {
		return &benchv1.MPIBenchmark{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)}}
	}
	release, _ := turns.take(obj("a"), open)
	turns.take(obj("b"), full)
	turns.take(obj("c"), open)
	release()
	if got := (<-open).Object.GetName(); got != "c" {
		t.Fatalf("woke %s, want c", got)
	}
	if _, ok := turns.take(obj("c"), open); !ok {
		t.Fatal("c did not get the turn")
	}
}

// failingDriver's attempt is observed ToolFailed; Failure counts its calls.
type failingDriver struct {
	stepDriver
	failures *int
}

func (d failingDriver) Observe(context.Context, int) (children.Attempt, error) {
	return children.Attempt{Phase: children.PhaseToolFailed}, nil
}

func (d failingDriver) Failure(context.Context, children.Attempt) error {
	*d.failures++
	return outcome.Fail(benchv1.ReasonToolFailed, "fio exited with code 1")
}

// A failed tool's log is read in a turn to collect, like a finished one's:
// with every turn taken, the failure waits its turn and reads nothing, so
// that a burst of failures holds no more logs than the collectors do.
func TestToolFailureWaitsForATurnToCollect(t *testing.T) {
	saved := collecting
	collecting = newTurnsToCollect(1)
	defer func() { collecting = saved }()
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	b := wrappers.MakeStorageBenchmark("fio", "perf").CreationTimestamp(now).StartTime(now).Obj()
	e := newMetricsEnv(t, now, b)
	failures := 0
	reconcile := func() (ctrl.Result, error) {
		var got benchv1.StorageBenchmark
		if err := e.Get(context.Background(), client.ObjectKeyFromObject(b), &got); err != nil {
			t.Fatal(err)
		}
		d := failingDriver{stepDriver{b: &got, step: func(*benchv1.StorageBenchmark) error { return nil }}, &failures}
		return e.Reconcile(context.Background(), d)
	}
	release, ok := collecting.take(wrappers.MakeStorageBenchmark("other", "perf").Obj(), nil)
	if !ok {
		t.Fatal("no free turn")
	}
	res, err := reconcile()
	if err != nil || failures != 0 || res.RequeueAfter != collectRetry {
		t.Fatalf("with every turn taken: %+v, %v, %d failure read(s); want none, looking again in %s", res, err, failures, collectRetry)
	}
	release()
	if _, err := reconcile(); err != nil || failures != 1 {
		t.Fatalf("with a turn free: %v, %d failure read(s), want 1", err, failures)
	}
	var got benchv1.StorageBenchmark
	if err := e.Get(context.Background(), client.ObjectKeyFromObject(b), &got); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed); c == nil || c.Reason != benchv1.ReasonToolFailed {
		t.Fatalf("conditions %+v, want Failed/ToolFailed", got.Status.Conditions)
	}
	if _, ok := collecting.take(b, nil); !ok {
		t.Fatal("the failure did not give its turn back")
	}
}
