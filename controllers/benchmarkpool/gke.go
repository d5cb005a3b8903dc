package benchmarkpool

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/conditions"
	"github.com/benchwright/benchwright/internal/gke"
)

// NodePools is what the controller needs of GKE (gke.Provider). Delete
// returns "" and no error for a node pool that does not exist; Cluster reads
// the cluster afresh or gives the last read.
type NodePools interface {
	Cluster(ctx context.Context, c gke.Cluster, fresh bool) (gke.ClusterInfo, error)
	ExcludeUpgrades(ctx context.Context, c gke.Cluster, d time.Duration) (gke.ClusterInfo, error)
	Create(ctx context.Context, c gke.Cluster, np *containerpb.NodePool) (string, error)
	Operation(ctx context.Context, c gke.Cluster, op string) (bool, error)
	Get(ctx context.Context, c gke.Cluster, name string) (*containerpb.NodePool, error)
	Delete(ctx context.Context, c gke.Cluster, name string) (string, error)
}

// Annotations that carry the GKE work in flight across reconciles.
const (
	operationAnnotation = "benchwright.io/gke-operation"
	// operationStartedAnnotation is when the operation in flight started,
	// for OperationTimeout.
	operationStartedAnnotation = "benchwright.io/gke-operation-started"
	attemptsAnnotation         = "benchwright.io/gke-failed-attempts"
	// busyAnnotation counts the creates GKE refused for a busy cluster,
	// apart from the failed attempts: a wait for an upgrade does not lengthen
	// the backoff after a stockout.
	busyAnnotation       = "benchwright.io/gke-busy-attempts"
	retryAfterAnnotation = "benchwright.io/gke-retry-after"
	// failedAnnotation is "<reason>: <message>" of a pool failed for good:
	// Ready says it on every reconcile.
	failedAnnotation = "benchwright.io/gke-failed"
	// adoptedAnnotation is "<reason>: <message>" of the create whose answer
	// was lost though GKE made the node pool: Ready says it is adopted until
	// the node pool runs, whatever became of the status write that said it
	// first.
	adoptedAnnotation = "benchwright.io/gke-adopted"
)

// Kinds of operation in operationAnnotation ("create:<op>", "delete:<op>").
const (
	opCreate = "create"
	opDelete = "delete"
)

// Waits of the GKE work.
const (
	pollEvery               = 10 * time.Second
	maxRetryBackoff         = 10 * time.Minute
	defaultOperationTimeout = 30 * time.Minute
	// A busy cluster is waited out at most 8 backoffs apart: its operation
	// (an upgrade, another pool) ends by itself, unlike a stockout.
	maxBusyDoublings = 3
	// recheckPolls: a running node pool is read again every 6 polls (a
	// minute by default).
	recheckPolls = 6
)

// gkeStep is what one look at the GKE side decided.
type gkeStep struct {
	requeue time.Duration
	// dirty tells that annotations changed and the object must be written.
	dirty bool
	// blocked tells that Ready says why nothing can be asked of GKE until
	// the manager's configuration changes.
	blocked bool
	// note is what Ready adds to its nodes' count (GKE reconciling the pool).
	note string
}

// ensureGKE creates the node pool, follows its operation, reads back its
// settings, and on failure cleans up and retries with backoff where retrying
// can help (stockouts, transient errors); a quota or an invalid configuration
// fails the pool with GKE's own message.
func (r *Reconciler) ensureGKE(ctx context.Context, p *benchv1.BenchmarkPool) (gkeStep, error) {
	if r.GKE == nil {
		r.notReady(p, metav1.ConditionFalse, benchv1.ReasonProviderError,
			"the manager has no GKE cluster configured: start it with --gke-project, --gke-location and --gke-cluster (or use provider existing)")
		return gkeStep{blocked: true}, nil
	}
	cluster, err := gke.ClusterFor(r.GKECluster, r.GKEAllowedClusters, p.Spec.GKE)
	if gke.KindOf(err) == gke.NotAllowed {
		// Not failed for good: an admin may allow the cluster and restart the manager.
		r.notReady(p, metav1.ConditionFalse, benchv1.ReasonClusterNotAllowed, message(err))
		return gkeStep{blocked: true}, nil
	}
	if err != nil {
		r.failForGood(p, err)
		return gkeStep{}, nil
	}
	info, err := r.GKE.Cluster(ctx, cluster, false)
	switch {
	case gke.KindOf(err) == gke.InvalidConfig:
		r.failForGood(p, err) // no such cluster
		return gkeStep{}, nil
	case err != nil:
		setProvisioning(p, metav1.ConditionTrue, gke.KindOf(err).Reason(), "reading GKE cluster "+cluster.Parent()+": "+message(err))
		return gkeStep{requeue: r.poll()}, nil
	}
	target := gke.Target{Cluster: cluster, Info: info, DefaultZone: r.GKEDefaultZone}
	np, err := gke.NodePoolRequest(p.Name, string(p.UID), p.Spec.GKE, target)
	if err != nil {
		r.failForGood(p, err)
		return gkeStep{}, nil
	}
	p.Status.NodePoolName = np.Name
	if what, op, ok := operation(p); ok {
		done, err := r.GKE.Operation(ctx, cluster, op)
		verb := strings.TrimSuffix(what, "e") + "ing"
		switch {
		case !done && err != nil:
			// The poll failed; look again.
			setProvisioning(p, metav1.ConditionTrue, gke.KindOf(err).Reason(), fmt.Sprintf("reading GKE operation %s (%s node pool %s): %s", op, verb, np.Name, message(err)))
			return gkeStep{requeue: r.poll()}, nil
		case !done && r.overdue(p):
			r.notReadyOnce(p, metav1.ConditionTrue, benchv1.ReasonProviderError, r.overdueMessage(op, verb, np.Name))
			return gkeStep{requeue: r.poll()}, nil
		case !done:
			setProvisioning(p, metav1.ConditionTrue, benchv1.ReasonCreating, fmt.Sprintf("GKE is %s node pool %s (operation %s)", verb, np.Name, op))
			return gkeStep{requeue: r.poll()}, nil
		}
		clearOperation(p)
		if err != nil && what == opCreate {
			return r.createFailed(ctx, p, cluster, np.Name, err)
		}
		if what == opDelete {
			return gkeStep{requeue: r.poll(), dirty: true}, nil
		}
	}
	if failed := p.Annotations[failedAnnotation]; failed != "" {
		// Failed for good: a person must change or delete the pool.
		if reason, msg, ok := strings.Cut(failed, ": "); ok {
			r.notReadyOnce(p, metav1.ConditionFalse, reason, msg)
		}
		return gkeStep{}, nil
	}
	existing, err := r.GKE.Get(ctx, cluster, np.Name)
	switch {
	case errors.Is(err, gke.ErrNotFound):
		return r.create(ctx, p, target)
	case err != nil:
		setProvisioning(p, metav1.ConditionTrue, gke.KindOf(err).Reason(), "reading node pool "+np.Name+" from GKE: "+message(err))
		return gkeStep{requeue: r.poll()}, nil
	}
	if !gke.OwnedBy(existing, string(p.UID)) {
		r.nameConflict(p, np.Name)
		return gkeStep{dirty: true}, nil
	}
	if err := gke.PoolError(existing); err != nil {
		// A create that failed: its operation's answer may have been lost
		// (a cleanup that failed, a manager restart), the pool says it too.
		return r.createFailed(ctx, p, cluster, np.Name, err)
	}
	eff := gke.Effective(existing, info)
	p.Status.Effective = &eff.Settings
	setUpgradesExcluded(p, cluster, info)
	if eff.Running() {
		setProvisioning(p, metav1.ConditionFalse, benchv1.ReasonNodesReady, fmt.Sprintf("node pool %s is %s", np.Name, eff.Status))
		clearFailures(p)
		// A running pool is looked at again now and then: GKE changes its
		// state (reconciling, a repair) with no event on the BenchmarkPool.
		step := gkeStep{dirty: true, requeue: recheckPolls * r.poll()}
		if eff.Reconciling() {
			// The pool serves while GKE works on it: Ready keeps its nodes'
			// word, and says so.
			step.note = fmt.Sprintf("%s: GKE is reconciling node pool %s", benchv1.ReasonReconciling, np.Name)
			if eff.Message != "" {
				step.note += " (" + eff.Message + ")"
			}
			step.requeue = r.poll()
		}
		return step, nil
	}
	if reason, cause, ok := strings.Cut(p.Annotations[adoptedAnnotation], ": "); ok {
		r.notReadyOnce(p, metav1.ConditionTrue, reason, adoptingMessage(np.Name, cause))
		return gkeStep{requeue: r.poll()}, nil
	}
	msg := fmt.Sprintf("node pool %s is %s", np.Name, eff.Status)
	if eff.Message != "" {
		msg += ": " + eff.Message
	}
	setProvisioning(p, metav1.ConditionTrue, benchv1.ReasonCreating, msg)
	return gkeStep{requeue: r.poll()}, nil
}

// create asks GKE for the node pool, unless a backoff is still running. The
// request is built on a fresh read of the cluster: its channel decides the
// pool's management.
func (r *Reconciler) create(ctx context.Context, p *benchv1.BenchmarkPool, target gke.Target) (gkeStep, error) {
	if at, err := time.Parse(time.RFC3339Nano, p.Annotations[retryAfterAnnotation]); err == nil && r.now().Before(at) {
		return gkeStep{requeue: at.Sub(r.now()) + 10*time.Millisecond}, nil
	}
	cluster := target.Cluster
	info, err := r.GKE.Cluster(ctx, cluster, true)
	if err != nil {
		setProvisioning(p, metav1.ConditionTrue, gke.KindOf(err).Reason(), "reading GKE cluster "+cluster.Parent()+": "+message(err))
		return gkeStep{requeue: r.poll()}, nil
	}
	var excludeErr error
	if r.GKEExcludeUpgradesFor > 0 && info.OnChannel() && info.Exclusion == "" {
		// The admin's leave to hold upgrades back: the exclusion is made
		// before the pool; a failure to make it is said, not fatal.
		if excluded, err := r.GKE.ExcludeUpgrades(ctx, cluster, r.GKEExcludeUpgradesFor); err != nil {
			excludeErr = err
		} else {
			info = excluded
		}
	}
	target.Info = info
	np, err := gke.NodePoolRequest(p.Name, string(p.UID), p.Spec.GKE, target)
	if err != nil {
		r.failForGood(p, err)
		return gkeStep{dirty: true}, nil
	}
	setUpgradesExcluded(p, cluster, info)
	if excludeErr != nil {
		c := conditions.Get(p, benchv1.PoolConditionUpgradesExcluded)
		conditions.Set(p, benchv1.PoolConditionUpgradesExcluded, c.Status, c.Reason, fmt.Sprintf(
			"%s; adding the maintenance exclusion %s failed: %s (the manager needs container.clusters.update)", c.Message, gke.ExclusionName, message(excludeErr)))
	}
	op, err := r.GKE.Create(ctx, cluster, np)
	if err != nil {
		return r.adoptLost(ctx, p, cluster, np.Name, err)
	}
	r.setOperation(p, opCreate, op)
	r.Recorder.Eventf(p, corev1.EventTypeNormal, benchv1.ReasonCreating, "Creating GKE node pool %s (%s x %d)", np.Name, p.Spec.GKE.MachineType, p.Spec.GKE.NodeCount)
	setProvisioning(p, metav1.ConditionTrue, benchv1.ReasonCreating, fmt.Sprintf("GKE is creating node pool %s (operation %s)", np.Name, op))
	return gkeStep{requeue: r.poll(), dirty: true}, nil
}

// adoptLost adopts the node pool a create that failed may have made all the
// same: GKE carried it out but its answer was lost (a dropped connection, a
// deadline), or an earlier create made it (GKE's "already exists"). The node
// pool carries this BenchmarkPool's UID, so it is this pool's: it is
// followed, not deleted and not created a second time; if it failed, its own
// error decides. Any other failed create goes to createFailed.
func (r *Reconciler) adoptLost(ctx context.Context, p *benchv1.BenchmarkPool, cluster gke.Cluster, name string, cause error) (gkeStep, error) {
	existing, err := r.GKE.Get(ctx, cluster, name)
	switch {
	case err != nil || !gke.OwnedBy(existing, string(p.UID)):
		return r.createFailed(ctx, p, cluster, name, cause) // none, or another's
	case gke.PoolError(existing) != nil:
		return r.createFailed(ctx, p, cluster, name, gke.PoolError(existing))
	}
	reason := gke.KindOf(cause).Reason()
	metav1.SetMetaDataAnnotation(&p.ObjectMeta, adoptedAnnotation, reason+": "+message(cause))
	r.notReady(p, metav1.ConditionTrue, reason, adoptingMessage(name, message(cause)))
	return gkeStep{requeue: r.poll(), dirty: true}, nil
}

// adoptingMessage says that a create's answer was lost but GKE has the node
// pool.
func adoptingMessage(name, cause string) string {
	return fmt.Sprintf("GKE's answer to creating node pool %s was lost (%s), but GKE has the node pool, marked with this BenchmarkPool's UID: adopting it", name, cause)
}

// createFailed deletes what a failed create left (GKE keeps a pool in ERROR),
// then schedules a retry or fails the pool for good.
func (r *Reconciler) createFailed(ctx context.Context, p *benchv1.BenchmarkPool, cluster gke.Cluster, name string, cause error) (gkeStep, error) {
	if gke.KindOf(cause) == gke.Busy {
		return r.waitForCluster(p, cause), nil
	}
	// What failed may be another's node pool of that name (GKE's "already
	// exists"): only a node pool with this BenchmarkPool's mark is cleaned up.
	if mine, err := r.ownsNodePool(ctx, p, cluster, name); err != nil {
		return gkeStep{requeue: r.poll(), dirty: true}, nil
	} else if !mine {
		r.nameConflict(p, name)
		return gkeStep{dirty: true}, nil
	}
	op, err := r.GKE.Delete(ctx, cluster, name)
	if err != nil {
		// Clean up first, then decide.
		r.notReadyOnce(p, metav1.ConditionTrue, gke.KindOf(cause).Reason(), fmt.Sprintf(
			"%s; deleting the failed node pool %s failed: %s; trying again", message(cause), name, message(err)))
		return gkeStep{requeue: r.poll(), dirty: true}, nil
	}
	if op != "" {
		r.setOperation(p, opDelete, op)
	}
	attempts, _ := strconv.Atoi(p.Annotations[attemptsAnnotation])
	attempts++
	metav1.SetMetaDataAnnotation(&p.ObjectMeta, attemptsAnnotation, strconv.Itoa(attempts))
	if !gke.Retryable(cause) {
		r.failForGood(p, cause)
		return gkeStep{dirty: true}, nil
	}
	wait := min(r.backoff()<<min(attempts-1, 16), maxRetryBackoff)
	metav1.SetMetaDataAnnotation(&p.ObjectMeta, retryAfterAnnotation, r.now().Add(wait).Format(time.RFC3339Nano))
	msg := fmt.Sprintf("%s; retrying in %s (attempt %d)", message(cause), wait.Round(time.Millisecond), attempts)
	r.notReady(p, metav1.ConditionTrue, gke.KindOf(cause).Reason(), msg)
	return gkeStep{requeue: wait + 10*time.Millisecond, dirty: true}, nil
}

// waitForCluster schedules the create again after GKE refused it for a busy
// cluster (nothing was created), and says so in GKE's words.
func (r *Reconciler) waitForCluster(p *benchv1.BenchmarkPool, cause error) gkeStep {
	attempts, _ := strconv.Atoi(p.Annotations[busyAnnotation])
	attempts++
	metav1.SetMetaDataAnnotation(&p.ObjectMeta, busyAnnotation, strconv.Itoa(attempts))
	wait := min(r.backoff()<<min(attempts-1, maxBusyDoublings), maxRetryBackoff)
	metav1.SetMetaDataAnnotation(&p.ObjectMeta, retryAfterAnnotation, r.now().Add(wait).Format(time.RFC3339Nano))
	r.notReady(p, metav1.ConditionTrue, benchv1.ReasonClusterBusy, fmt.Sprintf("Waiting: cluster busy (%s); retrying in %s (attempt %d)",
		message(cause), wait.Round(time.Millisecond), attempts))
	return gkeStep{requeue: wait + 10*time.Millisecond, dirty: true}
}

// setUpgradesExcluded says whether GKE may upgrade the pool's nodes during a
// campaign, and what an admin does about it.
func setUpgradesExcluded(p *benchv1.BenchmarkPool, c gke.Cluster, info gke.ClusterInfo) {
	status, reason := metav1.ConditionTrue, benchv1.ReasonAutoUpgradeOff
	msg := fmt.Sprintf("cluster %s is on no release channel: the node pool's auto-upgrade and auto-repair are off", c.Parent())
	switch {
	case !info.OnChannel():
	case info.Exclusion != "":
		reason = benchv1.ReasonMaintenanceExclusion
		msg = fmt.Sprintf("cluster %s is on release channel %s, so GKE keeps the node pool's auto-upgrade and auto-repair on; the maintenance exclusion %q holds minor and node upgrades back (auto-repair may still recreate an unhealthy node)",
			c.Parent(), info.Channel, info.Exclusion)
	default:
		status, reason = metav1.ConditionFalse, benchv1.ReasonNoMaintenanceExclusion
		msg = fmt.Sprintf("cluster %s is on release channel %s, so GKE keeps the node pool's auto-upgrade on and may upgrade its nodes during a campaign: an admin adds a maintenance exclusion of scope no_minor_or_node_upgrades (gcloud container clusters update %s --location %s --add-maintenance-exclusion-name benchwright --add-maintenance-exclusion-scope no_minor_or_node_upgrades --add-maintenance-exclusion-start NOW --add-maintenance-exclusion-end END)",
			c.Parent(), info.Channel, c.Name, c.Location)
	}
	conditions.Set(p, benchv1.PoolConditionUpgradesExcluded, status, reason, msg)
}

// failForGood fails the pool with GKE's reason and message and stops further
// creates.
func (r *Reconciler) failForGood(p *benchv1.BenchmarkPool, cause error) {
	r.fail(p, gke.KindOf(cause).Reason(), message(cause))
}

// fail stores why the pool failed for good, and says it.
func (r *Reconciler) fail(p *benchv1.BenchmarkPool, reason, msg string) {
	metav1.SetMetaDataAnnotation(&p.ObjectMeta, failedAnnotation, reason+": "+msg)
	r.notReady(p, metav1.ConditionFalse, reason, msg)
}

// notReady sets Provisioning to provisioning and Ready False, both with the
// reason and message, and records them as a warning.
func (r *Reconciler) notReady(p *benchv1.BenchmarkPool, provisioning metav1.ConditionStatus, reason, msg string) {
	setProvisioning(p, provisioning, reason, msg)
	conditions.Set(p, benchv1.PoolConditionReady, metav1.ConditionFalse, reason, msg)
	r.Recorder.Event(p, corev1.EventTypeWarning, reason, msg)
}

// notReadyOnce is notReady, with its warning only when Ready says something new
// (a condition repeated at every poll is one event).
func (r *Reconciler) notReadyOnce(p *benchv1.BenchmarkPool, provisioning metav1.ConditionStatus, reason, msg string) {
	if c := conditions.Get(p, benchv1.PoolConditionReady); c != nil && c.Reason == reason && c.Message == msg {
		setProvisioning(p, provisioning, reason, msg)
		return
	}
	r.notReady(p, provisioning, reason, msg)
}

// deleteGKE deletes the node pool, following GKE's operations (a create in
// flight finishes first); done once GKE no longer has the pool.
func (r *Reconciler) deleteGKE(ctx context.Context, p *benchv1.BenchmarkPool) (done bool, err error) {
	if p.Spec.GKE == nil {
		return true, nil
	}
	if r.GKE == nil {
		if p.Status.NodePoolName == "" && p.Annotations[operationAnnotation] == "" {
			return true, nil // nothing was ever asked of GKE
		}
		// A node pool may exist: keep the finalizer rather than leak it.
		msg := fmt.Sprintf("the manager has no GKE cluster configured, so node pool %s cannot be deleted: start it with --gke-project, --gke-location and --gke-cluster, or delete the node pool with gcloud and then remove the finalizer %s", p.Status.NodePoolName, finalizer)
		conditions.Set(p, benchv1.PoolConditionDeleting, metav1.ConditionTrue, benchv1.ReasonProviderError, msg)
		return false, nil
	}
	cluster, err := gke.ClusterFor(r.GKECluster, r.GKEAllowedClusters, p.Spec.GKE)
	switch {
	case gke.KindOf(err) == gke.NotAllowed && (p.Status.NodePoolName != "" || p.Annotations[operationAnnotation] != ""):
		// Allowed once, no longer: keep the finalizer rather than leak the node pool.
		conditions.Set(p, benchv1.PoolConditionDeleting, metav1.ConditionTrue, benchv1.ReasonClusterNotAllowed, fmt.Sprintf(
			"node pool %s cannot be deleted: %s; or delete the node pool with gcloud and then remove the finalizer %s",
			gke.NodePoolName(p.Name), message(err), finalizer))
		return false, nil
	case err != nil:
		return true, nil // nothing can have been created
	}
	name := gke.NodePoolName(p.Name)
	var failed error // this reconcile's failed delete, for the condition
	if _, op, ok := operation(p); ok {
		finished, err := r.GKE.Operation(ctx, cluster, op)
		switch {
		case !finished && err == nil && r.overdue(p):
			r.setDeleting(p, name, &gke.Error{Kind: gke.Transient, Message: r.overdueMessage(op, "deleting", name)})
			return false, nil
		case !finished:
			r.setDeleting(p, name, err)
			return false, nil
		}
		clearOperation(p)
		if err := r.Update(ctx, p); err != nil {
			return false, err
		}
		failed = err
	}
	mine, err := r.ownsNodePool(ctx, p, cluster, name)
	if err != nil {
		r.setDeleting(p, name, err) // look again
		return false, nil
	}
	if !mine {
		r.Recorder.Eventf(p, corev1.EventTypeNormal, benchv1.ReasonNameConflict,
			"Left GKE node pool %s alone: this BenchmarkPool did not create it", name)
		return true, nil
	}
	op, err := r.GKE.Delete(ctx, cluster, name)
	switch {
	case err == nil && op == "":
		return true, nil // GKE no longer has the pool
	case err != nil:
		failed = err // whatever it is, the pool is kept until GKE deletes its node pool
	default:
		r.setOperation(p, opDelete, op)
		if err := r.Update(ctx, p); err != nil {
			return false, err
		}
	}
	r.setDeleting(p, name, failed)
	return false, nil
}

// setDeleting says that the node pool is being deleted, or why its delete
// failed (it is tried again), with a warning for each new failure.
func (r *Reconciler) setDeleting(p *benchv1.BenchmarkPool, name string, failed error) {
	if failed == nil {
		conditions.Set(p, benchv1.PoolConditionDeleting, metav1.ConditionTrue, benchv1.ReasonDeletingNodePool, "GKE is deleting node pool "+name)
		return
	}
	reason := gke.KindOf(failed).Reason()
	msg := fmt.Sprintf("deleting node pool %s: %s; trying again", name, message(failed))
	if c := conditions.Get(p, benchv1.PoolConditionDeleting); c == nil || c.Reason != reason || c.Message != msg {
		r.Recorder.Event(p, corev1.EventTypeWarning, reason, msg)
	}
	conditions.Set(p, benchv1.PoolConditionDeleting, metav1.ConditionTrue, reason, msg)
}

// ownsNodePool tells whether GKE's node pool name is absent or carries this
// BenchmarkPool's mark: the only node pools it may delete.
func (r *Reconciler) ownsNodePool(ctx context.Context, p *benchv1.BenchmarkPool, cluster gke.Cluster, name string) (bool, error) {
	existing, err := r.GKE.Get(ctx, cluster, name)
	switch {
	case errors.Is(err, gke.ErrNotFound):
		return true, nil
	case err != nil:
		return false, err
	}
	return gke.OwnedBy(existing, string(p.UID)), nil
}

// nameConflict fails the pool for good: GKE has a node pool of its name that
// it did not create, which it neither adopts nor deletes.
func (r *Reconciler) nameConflict(p *benchv1.BenchmarkPool, name string) {
	r.fail(p, benchv1.ReasonNameConflict, fmt.Sprintf(
		"GKE already has a node pool %s that this BenchmarkPool did not create (no %s=%s resource label): benchwright neither adopts nor deletes it; give the BenchmarkPool another name",
		name, gke.OwnerLabel, p.UID))
}

// operation is the GKE operation in flight: what it does (opCreate, opDelete)
// and its name.
func operation(p *benchv1.BenchmarkPool) (what, op string, ok bool) {
	return strings.Cut(p.Annotations[operationAnnotation], ":")
}

// setOperation records an operation in flight, and when it started, for the
// next reconciles.
func (r *Reconciler) setOperation(p *benchv1.BenchmarkPool, what, op string) {
	metav1.SetMetaDataAnnotation(&p.ObjectMeta, operationAnnotation, what+":"+op)
	metav1.SetMetaDataAnnotation(&p.ObjectMeta, operationStartedAnnotation, r.now().Format(time.RFC3339Nano))
}

// clearOperation forgets the operation in flight.
func clearOperation(p *benchv1.BenchmarkPool) {
	delete(p.Annotations, operationAnnotation)
	delete(p.Annotations, operationStartedAnnotation)
}

// overdue tells an operation in flight for longer than OperationTimeout.
func (r *Reconciler) overdue(p *benchv1.BenchmarkPool) bool {
	started, err := time.Parse(time.RFC3339Nano, p.Annotations[operationStartedAnnotation])
	return err == nil && r.now().Sub(started) > r.operationTimeout()
}

// overdueMessage says that an operation runs past OperationTimeout. GKE's
// operations cannot be cancelled: the pool waits for it to end, then cleans
// up or goes on.
func (r *Reconciler) overdueMessage(op, verb, name string) string {
	return fmt.Sprintf("GKE operation %s (%s node pool %s) has not finished within the %s timeout; waiting for it to end",
		op, verb, name, r.operationTimeout())
}

func (r *Reconciler) operationTimeout() time.Duration {
	if r.OperationTimeout > 0 {
		return r.OperationTimeout
	}
	return defaultOperationTimeout
}

func setProvisioning(p *benchv1.BenchmarkPool, status metav1.ConditionStatus, reason, msg string) {
	conditions.Set(p, benchv1.PoolConditionProvisioning, status, reason, msg)
}

func clearFailures(p *benchv1.BenchmarkPool) {
	delete(p.Annotations, attemptsAnnotation)
	delete(p.Annotations, busyAnnotation)
	delete(p.Annotations, retryAfterAnnotation)
	delete(p.Annotations, adoptedAnnotation)
}

// message is GKE's own message of an error.
func message(err error) string {
	var e *gke.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return err.Error()
}

func (r *Reconciler) poll() time.Duration {
	if r.PollInterval > 0 {
		return r.PollInterval
	}
	return pollEvery
}

func (r *Reconciler) backoff() time.Duration {
	if r.RetryBackoff > 0 {
		return r.RetryBackoff
	}
	return 30 * time.Second
}
