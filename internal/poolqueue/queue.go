// Package poolqueue is the queue of benchmarks on a BenchmarkPool and what
// keeps a benchmark from starting: its pool not Ready, its TuningProfile not
// Tuned, or other benchmarks ahead of it on the pool. It says what blocks and
// why; how long a benchmark may wait is the state machine's to decide.
package poolqueue

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
)

// Entry is one unfinished benchmark that names a pool.
type Entry struct {
	Kind, Namespace, Name string
	Created               time.Time
	Started               bool
}

// ID is kind/namespace/name, as BenchmarkPool.status.activeBenchmark shows it.
func (q Entry) ID() string { return q.Kind + "/" + q.Namespace + "/" + q.Name }

// List lists the unfinished benchmarks of every kind that name pool, in
// the order they get the pool: those that started (they hold it) first, then
// by creation time, then by namespace and name. Benchmarks that share a pool
// run one at a time, in creation order: two benchmarks on the same nodes at
// once spoil both results.
func List(ctx context.Context, c client.Reader, pool benchv1.PoolName) ([]Entry, error) {
	var out []Entry
	add := func(kind string, obj metav1.Object, spec *benchv1.Placement, st *benchv1.BenchmarkStatusCommon) {
		if spec.Pool != pool || outcome.Finished(st) || !obj.GetDeletionTimestamp().IsZero() {
			return
		}
		out = append(out, Entry{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(),
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
	var network benchv1.NetworkBenchmarkList
	if err := c.List(ctx, &network); err != nil {
		return nil, err
	}
	for i := range network.Items {
		b := &network.Items[i]
		add("NetworkBenchmark", b, &b.Spec.Placement, &b.Status.BenchmarkStatusCommon)
	}
	sortQueue(out)
	return out, nil
}

// Wait says why a benchmark may not start yet.
type Wait struct {
	Reason, Message string
	// Position in the pool's queue (1 = next), for status.queuePosition.
	Position int32
}

// Blocked says what keeps benchmark obj of kind from starting its first
// repetition now: its pool not Ready, its tuning profile not Tuned, or
// another benchmark ahead of it on the pool. Nil means go. Several workers
// that decide at once must go through Turns.Blocked.
func Blocked(ctx context.Context, c client.Reader, obj client.Object, kind string, p benchv1.Placement) (*Wait, error) {
	return blocked(ctx, c, obj, kind, p, nil)
}

// blocked is Blocked with the pool's queue seen through adjust (nil: as listed).
func blocked(ctx context.Context, c client.Reader, obj client.Object, kind string, p benchv1.Placement, adjust func([]Entry) []Entry) (*Wait, error) {
	if p.Pool != "" {
		var pool benchv1.BenchmarkPool
		err := c.Get(ctx, client.ObjectKey{Name: string(p.Pool)}, &pool)
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
		err := c.Get(ctx, client.ObjectKey{Name: string(p.Tuning)}, &prof)
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
	queue, err := List(ctx, c, p.Pool)
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		queue = adjust(queue)
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
