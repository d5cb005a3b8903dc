// Package benchmarkpool gives benchmarks their nodes: a GKE node pool built
// for benchmarks, or existing nodes labelled and tainted for the pool; it
// reports the nodes, the queue of benchmarks and deletes an idle pool.
package benchmarkpool

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaigngc"
	"github.com/benchwright/benchwright/internal/conditions"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/internal/poolqueue"
	"github.com/benchwright/benchwright/internal/statusupdate"
)

// finalizer keeps a pool until its nodes are released (or its GKE node pool
// deleted): a pool is never leaked.
const finalizer = "benchwright.io/pool-cleanup"

// workers is how many pools are reconciled at once: a GKE call that hangs
// until CallTimeout holds its own pool, not every other (whose overdue
// operations, nodes and deletes would wait behind it).
const workers = 4

// notReadyRetry is how often a pool that is not Ready looks again (new nodes
// match a selector without any event on the pool).
const notReadyRetry = 15 * time.Second

// Reconciler reconciles BenchmarkPools.
type Reconciler struct {
	client.Client
	// APIReader reads a GKE pool around the cache: its annotations are the
	// GKE work in flight, and a cached copy may predate the last reconcile's
	// writes (nil: the cache).
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  record.EventRecorder
	// GKE creates node pools; nil when the manager has no GKE cluster.
	GKE NodePools
	// GKECluster is the manager's cluster, which a pool's spec may override
	// only with a cluster of GKEAllowedClusters (see gke.ClusterFor).
	GKECluster         gke.Cluster
	GKEAllowedClusters []gke.Cluster
	// GKEDefaultZone is the zone of a pool that names none on a cluster with
	// several zones (chart gke.defaultZone); empty: such a pool is refused.
	GKEDefaultZone string
	// GKEExcludeUpgradesFor, when positive, lets the manager add a maintenance
	// exclusion holding minor and node upgrades back for this long on a
	// release-channel cluster that has none, before it makes a pool (chart
	// gke.excludeUpgradesFor).
	GKEExcludeUpgradesFor time.Duration
	// PollInterval and RetryBackoff pace the GKE work (10 s and 30 s, doubled
	// per failed attempt, when zero).
	PollInterval, RetryBackoff time.Duration
	// CallTimeout bounds each GKE call (1 minute when zero): a call that
	// hangs fails with DeadlineExceeded, and what it may have done on GKE's
	// side is found by the next look.
	CallTimeout time.Duration
	// OperationTimeout is how long a GKE operation may run before the pool
	// says it is overdue (30 minutes when zero).
	OperationTimeout time.Duration
	// Clock is the time (time.Now when nil).
	Clock func() time.Time
	// WorkflowRecheck is how often a campaign's pool looks up the Workflow
	// that made it (campaigngc.DefaultRecheck when zero).
	WorkflowRecheck time.Duration
}

// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools/finalizers,verbs=update
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks;mpibenchmarks;networkbenchmarks,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=benchwright.io,resources=tuningprofiles,verbs=get;list;watch

// Reconcile claims the pool's nodes, reports them and the queue, deletes an
// idle pool after its TTL, and releases everything on deletion.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// A write that lost to another is a quiet requeue, not an error.
	return statusupdate.Quiet(r.reconcile(ctx, req))
}

func (r *Reconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r = r.timed()
	p, err := r.read(ctx, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !p.DeletionTimestamp.IsZero() {
		return r.delete(ctx, p)
	}
	deleted, recheck, err := r.collect(ctx, p)
	if deleted || err != nil {
		return ctrl.Result{}, err // a deletion reconciles again, to release the nodes
	}
	if err := statusupdate.AddFinalizer(ctx, r.Client, p, finalizer); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// One reconcile's copy of the reconciler, whose events wait for the
	// status write.
	before, events := p.DeepCopy(), statusupdate.NewEvents(r.Recorder)
	step := *r
	step.Recorder = events
	res, err := step.observe(ctx, p)
	switch {
	case apierrors.IsConflict(err):
		// A node read before another pool claimed it: look again.
		return ctrl.Result{RequeueAfter: statusupdate.ConflictRetry}, nil
	case err != nil:
		return ctrl.Result{}, err
	}
	p.Status.ObservedGeneration = p.Generation
	p.Status.State = state(p)
	switch written, err := statusupdate.Write(ctx, r.Client, before, p, events); {
	case err != nil:
		return ctrl.Result{}, err
	case written == statusupdate.Conflicted:
		return ctrl.Result{RequeueAfter: statusupdate.ConflictRetry}, nil
	}
	return campaigngc.Sooner(res, recheck), nil
}

// read reads the pool; a GKE pool afresh, around the cache. Its annotations
// are the GKE work in flight, and a cached copy that predates the last
// reconcile's writes would create a node pool again (a pool failed for good,
// or one whose create is in flight) and, since a merge patch of annotations
// does not conflict, overwrite the status those writes made.
func (r *Reconciler) read(ctx context.Context, key types.NamespacedName) (*benchv1.BenchmarkPool, error) {
	var p benchv1.BenchmarkPool
	if err := r.Get(ctx, key, &p); err != nil {
		return nil, err
	}
	if p.Spec.Provider != benchv1.ProviderGKE || r.APIReader == nil {
		return &p, nil
	}
	var fresh benchv1.BenchmarkPool
	if err := r.APIReader.Get(ctx, key, &fresh); err != nil {
		return nil, err
	}
	return &fresh, nil
}

// observe claims the nodes and fills the status: nodes, readiness, queue, TTL.
func (r *Reconciler) observe(ctx context.Context, p *benchv1.BenchmarkPool) (ctrl.Result, error) {
	var conflicts []string
	var gkeNote string
	var requeue time.Duration
	switch {
	case p.Spec.Provider == benchv1.ProviderExisting && p.Spec.Existing != nil:
		var err error
		if conflicts, err = r.claimExisting(ctx, p); err != nil {
			return ctrl.Result{}, err
		}
	case p.Spec.Provider == benchv1.ProviderGKE:
		base := p.DeepCopy()
		step, err := r.ensureGKE(ctx, p)
		if err != nil {
			return ctrl.Result{}, err
		}
		if step.dirty {
			if err := r.writeAnnotations(ctx, p, base); err != nil {
				return ctrl.Result{}, err
			}
		}
		if step.blocked || p.Annotations[failedAnnotation] != "" || meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.PoolConditionProvisioning) {
			return ctrl.Result{RequeueAfter: step.requeue}, nil
		}
		gkeNote, requeue = step.note, step.requeue
	}
	var nodes corev1.NodeList
	if err := r.List(ctx, &nodes, client.MatchingLabels{benchv1.PoolLabel: p.Name}); err != nil {
		return ctrl.Result{}, err
	}
	p.Status.Nodes, p.Status.ReadyNodes = nil, 0
	for _, n := range nodes.Items {
		p.Status.Nodes = append(p.Status.Nodes, n.Name)
		if nodeReady(&n) {
			p.Status.ReadyNodes++
		}
	}
	// The cache lists in no fixed order; a sorted list keeps the status
	// stable, so an unchanged pool is not written again.
	slices.Sort(p.Status.Nodes)
	ready := setReady(p, len(nodes.Items), conflicts, gkeNote)
	idle, err := r.observeQueue(ctx, p, ready)
	if err != nil {
		return ctrl.Result{}, err
	}
	if ttl := p.Spec.TTLSecondsAfterIdle; ttl != nil && idle {
		left := time.Duration(*ttl)*time.Second - r.now().Sub(p.Status.LastUsedTime.Time)
		if left <= 0 {
			campaigngc.Tell(r.Recorder, p, "BenchmarkPool", corev1.EventTypeNormal, benchv1.ReasonIdleExpired,
				fmt.Sprintf("no benchmark or campaign cell used the pool for %ds (ttlSecondsAfterIdle): deleting it", *ttl))
			return ctrl.Result{}, client.IgnoreNotFound(r.Delete(ctx, p))
		}
		return ctrl.Result{RequeueAfter: min(left+time.Second, notReadyRetry*4)}, nil
	}
	if !ready {
		return ctrl.Result{RequeueAfter: notReadyRetry}, nil
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// writeAnnotations stores the GKE bookkeeping changed since base, keeping the
// status computed so far. A merge patch, not an update: an update refused
// for a stale copy would lose the name of an operation GKE already started.
func (r *Reconciler) writeAnnotations(ctx context.Context, p, base *benchv1.BenchmarkPool) error {
	status := p.Status.DeepCopy()
	if err := r.Patch(ctx, p, client.MergeFrom(base)); err != nil {
		return err
	}
	p.Status = *status
	return nil
}

// observeQueue reports which benchmark holds the pool and how many wait,
// and runs the idle clock: idle tells that the pool is, or was once, Ready
// and that no benchmark and no campaign cell holds it or waits for it.
// lastUsedTime is when one last did, or when the pool was first Ready.
func (r *Reconciler) observeQueue(ctx context.Context, p *benchv1.BenchmarkPool, ready bool) (idle bool, err error) {
	queue, err := poolqueue.List(ctx, r.Client, benchv1.PoolName(p.Name))
	if err != nil {
		return false, err
	}
	p.Status.ActiveBenchmark, p.Status.QueueLength = "", 0
	for i, q := range queue {
		if i == 0 && q.Started {
			p.Status.ActiveBenchmark = q.ID()
			continue
		}
		p.Status.QueueLength++
	}
	held := len(queue) > 0 || p.Annotations[benchv1.CampaignCellAnnotation] != ""
	if held || (ready && p.Status.LastUsedTime == nil) {
		now := statusupdate.MetaTime(r.now())
		p.Status.LastUsedTime = &now
	}
	return !held && p.Status.LastUsedTime != nil, nil
}

// setReady sets the Ready condition: every node of the pool Ready, labelled
// and tainted (a pool with no node is not Ready); note adds what GKE does
// to the pool meanwhile.
func setReady(p *benchv1.BenchmarkPool, nodes int, conflicts []string, note string) bool {
	status, reason := metav1.ConditionFalse, benchv1.ReasonNodesNotReady
	msg := fmt.Sprintf("%d of %d nodes Ready", p.Status.ReadyNodes, nodes)
	switch {
	case nodes == 0:
		reason = benchv1.ReasonNoMatchingNodes
		msg = "no node matches the pool"
		if p.Spec.Existing != nil {
			msg = fmt.Sprintf("no node matches existing.nodeSelector %v", p.Spec.Existing.NodeSelector)
		}
	case int(p.Status.ReadyNodes) == nodes:
		status, reason = metav1.ConditionTrue, benchv1.ReasonNodesReady
		msg = fmt.Sprintf("%d nodes Ready, labelled %s=%s", nodes, benchv1.PoolLabel, p.Name)
	}
	if len(conflicts) > 0 {
		msg += "; left out: " + strings.Join(conflicts, ", ")
	}
	if note != "" {
		msg += "; " + note
	}
	conditions.Set(p, benchv1.PoolConditionReady, status, reason, msg)
	return status == metav1.ConditionTrue
}

// setCondition sets one condition of the pool for its generation.
// delete deletes the GKE node pool or releases the pool's nodes, then lets
// the pool go.
func (r *Reconciler) delete(ctx context.Context, p *benchv1.BenchmarkPool) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(p, finalizer) {
		return ctrl.Result{}, nil
	}
	if p.Spec.Provider == benchv1.ProviderGKE {
		done, err := r.deleteGKE(ctx, p)
		if err != nil {
			return ctrl.Result{}, err
		}
		if !done {
			p.Status.State = state(p)
			return ctrl.Result{RequeueAfter: r.poll()}, client.IgnoreNotFound(r.Status().Update(ctx, p))
		}
	}
	if p.Spec.Provider != benchv1.ProviderGKE { // a GKE pool's nodes are gone: nothing to restore
		before := p.DeepCopy()
		if waiting, err := r.restoringProfiles(ctx, p); err != nil {
			return ctrl.Result{}, err
		} else if waiting {
			p.Status.State = state(p)
			if _, err := statusupdate.Write(ctx, r.Client, before, p, statusupdate.NewEvents(r.Recorder)); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			return ctrl.Result{RequeueAfter: notReadyRetry}, nil
		}
	}
	if err := r.releaseExcept(ctx, p.Name, nil); err != nil {
		return ctrl.Result{}, err
	}
	controllerutil.RemoveFinalizer(p, finalizer)
	return statusupdate.Quiet(ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, p)))
}

// state is the one-word State column.
func state(p *benchv1.BenchmarkPool) string {
	switch {
	case !p.DeletionTimestamp.IsZero():
		return "Deleting"
	case p.Annotations[failedAnnotation] != "":
		return "Failed"
	case meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.PoolConditionProvisioning):
		return "Provisioning"
	case meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.PoolConditionReady):
		return "Ready"
	}
	return "NotReady"
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// SetupWithManager watches pools, the nodes they label, the benchmarks
// that name them (for the queue and the TTL), and the deletion of the
// TuningProfiles on them (a deleted pool keeps its nodes until they are
// restored; a campaign's pool is collected after its profiles).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	byPool := func(pool func(client.Object) benchv1.PoolName) handler.EventHandler {
		return handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if p := pool(o); p != "" {
				return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: string(p)}}}
			}
			return nil
		})
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.BenchmarkPool{}).
		Watches(&corev1.Node{}, byPool(func(o client.Object) benchv1.PoolName { return benchv1.PoolName(o.GetLabels()[benchv1.PoolLabel]) }),
			builder.WithPredicates(predicate.ResourceVersionChangedPredicate{})).
		Watches(&benchv1.StorageBenchmark{}, byPool(func(o client.Object) benchv1.PoolName { return o.(*benchv1.StorageBenchmark).Spec.Pool })).
		Watches(&benchv1.MPIBenchmark{}, byPool(func(o client.Object) benchv1.PoolName { return o.(*benchv1.MPIBenchmark).Spec.Pool })).
		Watches(&benchv1.NetworkBenchmark{}, byPool(func(o client.Object) benchv1.PoolName { return o.(*benchv1.NetworkBenchmark).Spec.Pool })).
		Watches(&benchv1.TuningProfile{}, byPool(tuningProfilePool), builder.WithPredicates(profileLeaving)).
		Named("benchmarkpool").
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

func (r *Reconciler) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}
