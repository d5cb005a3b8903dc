package benchrun

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/conditions"
	"github.com/benchwright/benchwright/internal/metrics"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/wrappers"
)

// observed is the count and sum of a histogram's StorageBenchmark observations.
type observed struct {
	count uint64
	sum   float64
}

func observations(t *testing.T, h *prometheus.HistogramVec) observed {
	t.Helper()
	var d dto.Metric
	if err := h.WithLabelValues("StorageBenchmark").(prometheus.Metric).Write(&d); err != nil {
		t.Fatal(err)
	}
	return observed{d.GetHistogram().GetSampleCount(), d.GetHistogram().GetSampleSum()}
}

// since is what was observed after before.
func since(t *testing.T, h *prometheus.HistogramVec, before observed) observed {
	t.Helper()
	now := observations(t, h)
	return observed{now.count - before.count, now.sum - before.sum}
}

// stepDriver drives a StorageBenchmark whose step is the test's: it runs
// first (as Admit), and the benchmark's one attempt is then observed running.
type stepDriver struct {
	b    *benchv1.StorageBenchmark
	step func(*benchv1.StorageBenchmark) error
}

func (d stepDriver) Benchmark() Benchmark                                { return d.b }
func (d stepDriver) Kind() string                                        { return "StorageBenchmark" }
func (d stepDriver) Admit() error                                        { return d.step(d.b) }
func (d stepDriver) EnsureInputs(context.Context) error                  { return nil }
func (d stepDriver) StopChildren(context.Context) error                  { return nil }
func (d stepDriver) Display()                                            { d.b.Status.State = State(&d.b.Status.BenchmarkStatusCommon) }
func (d stepDriver) Record([]results.Summary) string                     { return "" }
func (d stepDriver) StopAttempt(context.Context, children.Attempt) error { return nil }
func (d stepDriver) Failure(context.Context, children.Attempt) error     { return nil }
func (d stepDriver) Collect(context.Context, children.Attempt) (Collected, error) {
	return Collected{}, nil
}
func (d stepDriver) CreateAttempt(context.Context, int, int) ([]client.Object, error) {
	return nil, nil
}
func (d stepDriver) Observe(context.Context, int) (children.Attempt, error) {
	return children.Attempt{Phase: children.PhaseRunning, Started: d.b.Status.StartTime.Time}, nil
}

// reconcileWith runs one Env.Reconcile of the benchmark as stored, with step
// as the kind's work.
func reconcileWith(t *testing.T, e *Env, key client.ObjectKey, step func(*benchv1.StorageBenchmark) error) (ctrl.Result, error) {
	t.Helper()
	var b benchv1.StorageBenchmark
	if err := e.Get(context.Background(), key, &b); err != nil {
		t.Fatal(err)
	}
	return e.Reconcile(context.Background(), stepDriver{b: &b, step: step})
}

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := benchv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func newMetricsEnv(t *testing.T, now time.Time, objs ...client.Object) *Env {
	t.Helper()
	s := testScheme(t)
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&benchv1.StorageBenchmark{}).Build()
	return &Env{Client: c, Scheme: s, Recorder: record.NewFakeRecorder(16), Clock: func() time.Time { return now }}
}

func TestReconcileObservesQueueAndRunOnce(t *testing.T) {
	created := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	b := wrappers.MakeStorageBenchmark("fio", "perf").CreationTimestamp(created).Obj()
	e := newMetricsEnv(t, created.Add(130*time.Second), b)
	key := client.ObjectKeyFromObject(b)
	queue, run := observations(t, metrics.QueueSeconds), observations(t, metrics.RunSeconds)

	start := func(b *benchv1.StorageBenchmark) error {
		if b.Status.StartTime == nil {
			b.Status.StartTime = &metav1.Time{Time: created.Add(30 * time.Second)}
		}
		conditions.Set(b, benchv1.ConditionRunning, metav1.ConditionTrue, benchv1.ReasonRunning, "running")
		return nil
	}
	for range 3 { // started once, then unchanged
		if _, err := reconcileWith(t, e, key, start); err != nil {
			t.Fatal(err)
		}
	}
	if got := since(t, metrics.QueueSeconds, queue); got != (observed{1, 30}) {
		t.Errorf("queue: %+v, want one observation of 30s", got)
	}
	if got := since(t, metrics.RunSeconds, run); got.count != 0 {
		t.Errorf("run observed %d times before the benchmark finished", got.count)
	}

	finish := func(b *benchv1.StorageBenchmark) error {
		b.Status.CompletionTime = &metav1.Time{Time: created.Add(130 * time.Second)}
		conditions.Set(b, benchv1.ConditionSucceeded, metav1.ConditionTrue, benchv1.ReasonCompleted, "done")
		return nil
	}
	for range 2 { // the second reconcile sees it finished and does nothing
		if _, err := reconcileWith(t, e, key, finish); err != nil {
			t.Fatal(err)
		}
	}
	if got := since(t, metrics.RunSeconds, run); got != (observed{1, 100}) {
		t.Errorf("run: %+v, want one observation of 100s", got)
	}
	if got := since(t, metrics.QueueSeconds, queue); got.count != 1 {
		t.Errorf("queue observed %d times, want 1", got.count)
	}
}

// A write from an out-of-date read conflicts, observes nothing and is a
// quiet requeue, not an error; the retry that writes observes.
func TestReconcileObservesOnlyWrittenTransitions(t *testing.T) {
	created := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	b := wrappers.MakeStorageBenchmark("fio", "perf").CreationTimestamp(created).StartTime(created.Add(10 * time.Second)).Obj()
	e := newMetricsEnv(t, created.Add(70*time.Second), b)
	key := client.ObjectKeyFromObject(b)
	queue, run := observations(t, metrics.QueueSeconds), observations(t, metrics.RunSeconds)

	fail := func(*benchv1.StorageBenchmark) error {
		return outcome.Fail(benchv1.ReasonToolFailed, "fio exited with code 1")
	}
	res, err := reconcileWith(t, e, key, func(b *benchv1.StorageBenchmark) error {
		// Someone else writes first: this reconcile's read is out of date.
		other := b.DeepCopy()
		other.Status.Retries = 1
		if err := e.Status().Update(context.Background(), other); err != nil {
			t.Fatal(err)
		}
		return fail(b)
	})
	if err != nil || res.RequeueAfter <= 0 {
		t.Fatalf("a conflict returned %+v, %v; want a quiet requeue", res, err)
	}
	if got := since(t, metrics.RunSeconds, run); got.count != 0 {
		t.Errorf("run observed %d times by a write that failed", got.count)
	}
	if _, err := reconcileWith(t, e, key, fail); err != nil {
		t.Fatal(err)
	}
	if got := since(t, metrics.RunSeconds, run); got != (observed{1, 60}) {
		t.Errorf("run: %+v, want one observation of 60s", got)
	}
	if got := since(t, metrics.QueueSeconds, queue); got.count != 0 {
		t.Errorf("queue observed %d times for a benchmark that had started before", got.count)
	}
}

// A benchmark that fails before it starts has neither duration.
func TestReconcileObservesNothingForAFailureBeforeTheStart(t *testing.T) {
	b := wrappers.MakeStorageBenchmark("fio", "perf").CreationTimestamp(time.Now()).Obj()
	e := newMetricsEnv(t, time.Now(), b)
	queue, run := observations(t, metrics.QueueSeconds), observations(t, metrics.RunSeconds)
	if _, err := reconcileWith(t, e, client.ObjectKeyFromObject(b), func(*benchv1.StorageBenchmark) error {
		return outcome.Fail(benchv1.ReasonTimeout, "the pool was not Ready within 1h")
	}); err != nil {
		t.Fatal(err)
	}
	if q, r := since(t, metrics.QueueSeconds, queue), since(t, metrics.RunSeconds, run); q.count+r.count != 0 {
		t.Errorf("observed queue %d and run %d times, want none", q.count, r.count)
	}
}
