package benchrun

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// startsFirst is the storage of a kind's work queue (client-go's, with its
// de-duplication, delays and rate limits): two lines, served in order, the
// benchmarks that have neither started nor finished first. A burst of new
// benchmarks then gets its first children before the Jobs already running
// are looked at again, and a running benchmark waits at most for the starts
// queued before it. An item's line is decided from the cache when it is
// pushed, whoever adds it (its events, its children's, a wake-up or a
// requeue).
//
// controller-runtime's own priority queue does this with priorities, but in
// v0.21 its workers can hang at shutdown (kubernetes-sigs/controller-runtime
// #3239) and a requeue keeps the priority the item was taken with.
type startsFirst struct {
	starting, rest []reconcile.Request
	waiting        func(client.ObjectKey) bool
}

// newStartsFirst is the queue constructor for controller.Options.NewQueue;
// newObj makes an empty benchmark of the kind, read through c.
func newStartsFirst(c client.Reader, newObj func() Benchmark) func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	waiting := func(key client.ObjectKey) bool {
		// The work queue holds its lock here: never wait long on a cache
		// still syncing at start-up (the rest's line is then as good).
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		b := newObj()
		if err := c.Get(ctx, key, b); err != nil {
			return false
		}
		return b.BenchmarkStatus().StartTime == nil && !gone(b)
	}
	return func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[reconcile.Request]{
			Name: name, Queue: &startsFirst{waiting: waiting},
		})
		delaying := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[reconcile.Request]{Name: name, Queue: q})
		return workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{
			Name: name, DelayingQueue: delaying,
		})
	}
}

// Push puts an item in its line (the work queue calls it once per item
// until it is taken).
func (q *startsFirst) Push(item reconcile.Request) {
	if q.waiting(item.NamespacedName) {
		q.starting = append(q.starting, item)
	} else {
		q.rest = append(q.rest, item)
	}
}

// Pop takes the first waiting benchmark, else the first of the rest.
func (q *startsFirst) Pop() reconcile.Request {
	line := &q.rest
	if len(q.starting) > 0 {
		line = &q.starting
	}
	item := (*line)[0]
	(*line)[0] = reconcile.Request{}
	*line = (*line)[1:]
	return item
}

// Len is both lines' length.
func (q *startsFirst) Len() int { return len(q.starting) + len(q.rest) }

// Touch leaves an item queued again where it is: its line was decided when
// it was pushed.
func (q *startsFirst) Touch(reconcile.Request) {}
