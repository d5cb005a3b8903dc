package benchmarkpool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
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

func (t timedNodePools) Cluster(ctx context.Context, c gke.Cluster, fresh bool) (gke.ClusterInfo, error) {
	return timed(ctx, t, func(ctx context.Context) (gke.ClusterInfo, error) { return t.NodePools.Cluster(ctx, c, fresh) })
}

func (t timedNodePools) ExcludeUpgrades(ctx context.Context, c gke.Cluster, d time.Duration) (gke.ClusterInfo, error) {
	return timed(ctx, t, func(ctx context.Context) (gke.ClusterInfo, error) { return t.NodePools.ExcludeUpgrades(ctx, c, d) })
}

func (t timedNodePools) Create(ctx context.Context, c gke.Cluster, np *containerpb.NodePool) (string, error) {
	return timed(ctx, t, func(ctx context.Context) (string, error) { return t.NodePools.Create(ctx, c, np) })
}

func (t timedNodePools) Operation(ctx context.Context, c gke.Cluster, op string) (bool, error) {
	return timed(ctx, t, func(ctx context.Context) (bool, error) { return t.NodePools.Operation(ctx, c, op) })
}

func (t timedNodePools) Get(ctx context.Context, c gke.Cluster, name string) (*containerpb.NodePool, error) {
	return timed(ctx, t, func(ctx context.Context) (*containerpb.NodePool, error) { return t.NodePools.Get(ctx, c, name) })
}

func (t timedNodePools) Delete(ctx context.Context, c gke.Cluster, name string) (string, error) {
	return timed(ctx, t, func(ctx context.Context) (string, error) { return t.NodePools.Delete(ctx, c, name) })
}

// timed runs one call under the call timeout.
func timed[T any](ctx context.Context, t timedNodePools, call func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	v, err := call(ctx)
	return v, t.cut(ctx, err)
}

// cut names the call timeout in the error of a call it cut short. The
// transport's words for it vary (DeadlineExceeded, or a stream the server
// cancelled at its copy of the deadline a moment before the caller's).
func (t timedNodePools) cut(ctx context.Context, err error) error {
	deadline, _ := ctx.Deadline()
	if err == nil || (!errors.Is(ctx.Err(), context.DeadlineExceeded) && time.Until(deadline) > t.timeout/10) {
		return err
	}
	return &gke.Error{Kind: gke.Transient, Err: err,
		Message: fmt.Sprintf("GKE did not answer within the %s call timeout (%s)", t.timeout, message(err))}
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
