package benchrun

import (
	"context"
	"fmt"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
)

// QueueEntry is one unfinished benchmark that names a pool.
type QueueEntry struct {
	Kind, Namespace, Name string
	Created               time.Time
	Started               bool
}

// ID is kind/namespace/name, as BenchmarkPool.status.activeBenchmark shows it.
func (q QueueEntry) ID() string { return q.Kind + "/" + q.Namespace + "/" + q.Name }

// PoolQueue lists the unfinished benchmarks of both kinds that name pool, in
// the order they get the pool: those that started (they hold it) first, then
// by creation time, then by namespace and name. Benchmarks that share a pool
// run one at a time, in creation order: two benchmarks on the same nodes at
// once spoil both results.
func PoolQueue(ctx context.Context, c client.Reader, pool benchv1.PoolName) ([]QueueEntry, error) {
	var out []QueueEntry
	add := func(kind string, obj metav1.Object, spec *benchv1.Placement, st *benchv1.BenchmarkStatusCommon) {
		if spec.Pool != pool || outcome.Finished(st) || !obj.GetDeletionTimestamp().IsZero() {
			return
		}
		out = append(out, QueueEntry{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(),
			Created: obj.GetCreationTimestamp().Time, Started: st.StartTime != nil})
	}
	var storage benchv1.StorageBenchmarkList
	if err := c.List(ctx, &storage); err != nil {
		return nil, err
	}
	for i := range storage.Items {
		b := &storage.Items[i]
		add("StorageBenchmark", b, &b.Spec.Placement, &b.Status.BenchmarkStatusCommon)
	}
	var mpi benchv1.MPIBenchmarkList
	if err := c.List(ctx, &mpi); err != nil {
		return nil, err
	}
	for i := range mpi.Items {
		b := &mpi.Items[i]
		add("MPIBenchmark", b, &b.Spec.Placement, &b.Status.BenchmarkStatusCommon)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Started != b.Started {
			return a.Started
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.ID() < b.ID()
	})
	return out, nil
}

// Wait says why a benchmark may not start yet.
type Wait struct {
	Reason, Message string
	// Position in the pool's queue (1 = next), for status.queuePosition.
	Position int32
}

// waitRetry is how often a waiting benchmark looks again.
const waitRetry = 5 * time.Second

// defaultWaitForNodes bounds the waits when spec.timeouts.waitForNodes does not.
const defaultWaitForNodes = time.Hour

// gate decides whether a benchmark may start its first repetition: its pool
// Ready, its tuning profile Tuned, and no other benchmark ahead of it on the
// pool. A wait longer than timeouts.waitForNodes (from the benchmark's
// creation) fails it with Timeout. Nil means go.
func (e *Env) gate(ctx context.Context, obj client.Object, kind string, placement benchv1.Placement, timeouts benchv1.Timeouts) (*Wait, error) {
	w, err := e.blocker(ctx, obj, kind, placement)
	if err != nil || w == nil {
		return w, err
	}
	limit := defaultWaitForNodes
	if t := timeouts.WaitForNodes; t != nil && t.Duration > 0 {
		limit = t.Duration
	}
	if e.Now().Sub(obj.GetCreationTimestamp().Time) > limit {
		return nil, outcome.Fail(benchv1.ReasonTimeout, fmt.Sprintf("waited longer than %s (spec.timeouts.waitForNodes): %s", limit, w.Message))
	}
	return w, nil
}

// blocker is what keeps the benchmark from starting now, if anything.
func (e *Env) blocker(ctx context.Context, obj client.Object, kind string, p benchv1.Placement) (*Wait, error) {
	if p.Pool != "" {
		var pool benchv1.BenchmarkPool
		err := e.Get(ctx, client.ObjectKey{Name: string(p.Pool)}, &pool)
		switch {
		case client.IgnoreNotFound(err) != nil:
			return nil, err
		case err != nil:
			return &Wait{Reason: benchv1.ReasonWaitingForPool, Message: fmt.Sprintf("BenchmarkPool %s does not exist", p.Pool)}, nil
		}
		if c := meta.FindStatusCondition(pool.Status.Conditions, benchv1.PoolConditionReady); c == nil || c.Status != metav1.ConditionTrue {
			msg := fmt.Sprintf("BenchmarkPool %s is not Ready", p.Pool)
			if c != nil && c.Message != "" {
				msg += ": " + c.Message
			}
			return &Wait{Reason: benchv1.ReasonWaitingForPool, Message: msg}, nil
		}
	}
	if p.Tuning != "" {
		var prof benchv1.TuningProfile
		err := e.Get(ctx, client.ObjectKey{Name: string(p.Tuning)}, &prof)
		switch {
		case client.IgnoreNotFound(err) != nil:
			return nil, err
		case err != nil:
			return &Wait{Reason: benchv1.ReasonWaitingForTuning, Message: fmt.Sprintf("TuningProfile %s does not exist", p.Tuning)}, nil
		}
		if c := meta.FindStatusCondition(prof.Status.Conditions, benchv1.TuningConditionTuned); c == nil || c.Status != metav1.ConditionTrue {
			msg := fmt.Sprintf("TuningProfile %s is not Tuned (%d of %d nodes)", p.Tuning, prof.Status.TunedNodes, prof.Status.DesiredNodes)
			if c != nil && c.Message != "" {
				msg += ": " + c.Message
			}
			return &Wait{Reason: benchv1.ReasonWaitingForTuning, Message: msg}, nil
		}
	}
	if p.Pool == "" {
		return nil, nil
	}
	queue, err := PoolQueue(ctx, e.Client, p.Pool)
	if err != nil {
		return nil, err
	}
	me := kind + "/" + obj.GetNamespace() + "/" + obj.GetName()
	for i, q := range queue {
		if q.ID() != me {
			continue
		}
		if i == 0 {
			return nil, nil
		}
		return &Wait{Reason: benchv1.ReasonQueued, Position: int32(i),
			Message: fmt.Sprintf("BenchmarkPool %s runs one benchmark at a time: %s holds it, %d ahead in the queue", p.Pool, queue[0].ID(), i)}, nil
	}
	return nil, nil
}

// hold keeps a benchmark that has not started yet until gate lets it go,
// recording the wait (Running False with the reason, the queue position).
// held tells the caller to return res; a started benchmark is never held.
func (m *machine) hold(ctx context.Context) (held bool, res ctrl.Result, err error) {
	if m.st.StartTime != nil {
		return false, ctrl.Result{}, nil
	}
	w, err := m.gate(ctx, m.b, m.kind, m.spec.Placement, m.spec.Timeouts)
	if err != nil {
		return true, ctrl.Result{}, err
	}
	if w == nil {
		m.st.QueuePosition = 0
		return false, ctrl.Result{}, nil
	}
	m.setRunning(metav1.ConditionFalse, w.Reason, w.Message)
	m.st.QueuePosition = w.Position
	return true, ctrl.Result{RequeueAfter: waitRetry}, nil
}
