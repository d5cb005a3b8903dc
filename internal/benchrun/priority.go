package benchrun

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// StartPriority is the queue priority of a benchmark that has not started:
// ahead of every look at a running one. A burst of new benchmarks then gets
// its first children before the Jobs already running are looked at again,
// and a running benchmark waits at most for the starts queued before it.
const StartPriority = 10

// startsFirst is a kind's work queue: controller-runtime's priority queue,
// where every add takes StartPriority when the benchmark (read from the
// cache) has neither started nor finished, whoever adds it: its own events,
// its Jobs' events, a wake-up or a requeue; and any other add at most 0. The
// controller re-adds a requeued item at the priority it was taken with,
// which would keep a started benchmark ahead of the waiting ones.
type startsFirst struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	waiting func(client.ObjectKey) bool
}

// newStartsFirst is the queue constructor for controller.Options.NewQueue;
// newObj makes an empty benchmark of the kind, read through c.
func newStartsFirst(c client.Reader, newObj func() Benchmark) func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	waiting := func(key client.ObjectKey) bool {
		b := newObj()
		if err := c.Get(context.Background(), key, b); err != nil {
			return false
		}
		return b.BenchmarkStatus().StartTime == nil && !gone(b)
	}
	return func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return &startsFirst{
			PriorityQueue: priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) { o.RateLimiter = rl }),
			waiting:       waiting,
		}
	}
}

// AddWithOpts adds each item at StartPriority while it waits to start.
func (q *startsFirst) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	for _, it := range items {
		oi := o
		if q.waiting(it.NamespacedName) {
			oi.Priority = StartPriority
		} else {
			oi.Priority = min(oi.Priority, 0)
		}
		q.PriorityQueue.AddWithOpts(oi, it)
	}
}

// Add, AddAfter and AddRateLimited go through AddWithOpts.
func (q *startsFirst) Add(item reconcile.Request) { q.AddWithOpts(priorityqueue.AddOpts{}, item) }

func (q *startsFirst) AddAfter(item reconcile.Request, after time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: after}, item)
}

func (q *startsFirst) AddRateLimited(item reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, item)
}
