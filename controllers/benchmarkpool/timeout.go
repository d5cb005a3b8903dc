package benchmarkpool

import (
	"cmp"
	"context"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/benchwright/benchwright/internal/gke"
)

// defaultCallTimeout bounds a GKE call when the Reconciler sets none.
const defaultCallTimeout = time.Minute

// timedNodePools bounds each call of NodePools: a call GKE never answers
// fails with DeadlineExceeded instead of holding a worker.
type timedNodePools struct {
	NodePools
	timeout time.Duration
}

func (t timedNodePools) Create(ctx context.Context, c gke.Cluster, np *containerpb.NodePool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.NodePools.Create(ctx, c, np)
}

func (t timedNodePools) Operation(ctx context.Context, c gke.Cluster, op string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.NodePools.Operation(ctx, c, op)
}

func (t timedNodePools) Get(ctx context.Context, c gke.Cluster, name string) (*containerpb.NodePool, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.NodePools.Get(ctx, c, name)
}

func (t timedNodePools) Delete(ctx context.Context, c gke.Cluster, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.NodePools.Delete(ctx, c, name)
}

// timed is the reconciler with its GKE calls bounded by CallTimeout.
func (r *Reconciler) timed() *Reconciler {
	if r.GKE == nil {
		return r
	}
	if _, ok := r.GKE.(timedNodePools); ok {
		return r
	}
	t := *r
	t.GKE = timedNodePools{NodePools: r.GKE, timeout: cmp.Or(r.CallTimeout, defaultCallTimeout)}
	return &t
}
