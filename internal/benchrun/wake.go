package benchrun

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/poolqueue"
)

// turns is the pool queues' arbiter of this process: every benchmark
// reconciler of every kind reads the same cache and decides through it.
var turns = poolqueue.NewTurns()

// Controller builds the controller of a benchmark kind (its For and Owns
// already set): e.Workers reconciles at once, benchmarks that have not
// started first (see startsFirst), and its benchmarks waiting on a
// pool look again as soon as another benchmark of any kind on that pool
// finishes or goes away, rather than waitRetry later; those waiting for a
// turn to collect, as soon as one frees (see turnsToCollect); and those
// whose expectations wait for a baseline, when it succeeds (see
// wakeDependents).
func (e *Env) Controller(b *builder.Builder, kind string) *builder.Builder {
	b = b.WithOptions(controller.Options{
		MaxConcurrentReconciles: max(e.Workers, 1),
		NewQueue:                newStartsFirst(e.Client, newBenchmark[kind]),
	})
	wake := func(ctx context.Context, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		bm, ok := obj.(Benchmark)
		if !ok || bm.BenchmarkSpec().Pool == "" {
			return
		}
		queue, err := poolqueue.List(ctx, e.Client, bm.BenchmarkSpec().Pool)
		if err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "listing the pool's queue", "pool", bm.BenchmarkSpec().Pool)
			return
		}
		for _, w := range queue {
			if w.Kind == kind && !w.Started {
				q.Add(reconcile.Request{NamespacedName: client.ObjectKey{Namespace: w.Namespace, Name: w.Name}})
			}
		}
	}
	h := handler.Funcs{
		UpdateFunc: func(ctx context.Context, ev event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if !gone(ev.ObjectOld) && gone(ev.ObjectNew) {
				wake(ctx, ev.ObjectNew, q)
			}
			e.wakeDependents(ctx, kind, ev.ObjectOld, ev.ObjectNew, q)
		},
		DeleteFunc: func(ctx context.Context, ev event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if !gone(ev.Object) {
				wake(ctx, ev.Object, q)
			}
		},
	}
	for _, newObj := range newBenchmark {
		b = b.Watches(newObj(), h)
	}
	e.collectWake = make(chan event.GenericEvent, collectWakeBuffer)
	return b.WatchesRawSource(source.Channel(e.collectWake, &handler.EnqueueRequestForObject{}))
}

// collectWakeBuffer is how many wake-ups to collect a controller holds
// before its workers take them; more are left to collectRetry.
const collectWakeBuffer = 256

// newBenchmark makes an empty benchmark of each kind.
var newBenchmark = map[string]func() Benchmark{
	"StorageBenchmark": func() Benchmark { return &benchv1.StorageBenchmark{} },
	"MPIBenchmark":     func() Benchmark { return &benchv1.MPIBenchmark{} },
	"NetworkBenchmark": func() Benchmark { return &benchv1.NetworkBenchmark{} },
}

// gone tells whether a benchmark has left its pool's queue: finished or
// being deleted.
func gone(obj client.Object) bool {
	bm, ok := obj.(Benchmark)
	return !ok || outcome.Finished(bm.BenchmarkStatus()) || !obj.GetDeletionTimestamp().IsZero()
}
