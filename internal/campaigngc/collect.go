package campaigngc

import (
	"cmp"
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// ReasonWorkflowGone is the reason of the Event on an object deleted because
// the Workflow that made it is gone.
const ReasonWorkflowGone = "WorkflowGone"

// DefaultRecheck is how often an object whose Workflow exists looks again
// when Collector.Recheck is zero: nothing watches Workflows, so this bounds
// how long a deleted Workflow's objects outlive it.
const DefaultRecheck = 15 * time.Second

// WorkflowKind is Argo's Workflow, read as metadata only.
var WorkflowKind = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Workflow"}

// Collector deletes a campaign's object once the Workflow it names is gone.
type Collector struct {
	// Reader reads Workflows around the cache: the manager's APIReader (the
	// cached client would start an informer on every Workflow). nil: nothing
	// is collected.
	Reader client.Reader
	// Client deletes the object.
	Client   client.Writer
	Recorder record.EventRecorder
	// Recheck is how soon an object whose Workflow exists (or could not be
	// looked up) looks again; DefaultRecheck when zero.
	Recheck time.Duration
}

// Every is how soon an object whose Workflow exists looks again.
func (c Collector) Every() time.Duration { return cmp.Or(c.Recheck, DefaultRecheck) }

// Collect looks up the Workflow obj names and deletes obj (an ordinary
// deletion: its finalizer then undoes what it did) when that Workflow is
// gone. deleted says obj was deleted or is already gone: the reconcile ends.
// recheck is how soon to look again; zero when obj names no Workflow. A
// lookup that fails is logged, keeps obj, and is no error of the reconcile.
func (c Collector) Collect(ctx context.Context, obj client.Object) (deleted bool, recheck time.Duration, err error) {
	w, ok, err := Of(obj)
	if c.Reader == nil || !ok {
		return false, 0, nil
	}
	logger := log.FromContext(ctx)
	if err != nil {
		logger.Info("ignoring the Workflow annotations", "reason", err.Error())
		return false, 0, nil
	}
	recheck = c.Every()
	live := &metav1.PartialObjectMetadata{}
	live.SetGroupVersionKind(WorkflowKind)
	lookup := c.Reader.Get(ctx, w.Key, live)
	verdict, why := Judge(w, live.GetUID(), lookup)
	switch verdict {
	case Alive:
		return false, recheck, nil
	case Unknown:
		logger.Info("keeping the object: its Workflow cannot be looked up", "workflow", w.String(), "reason", why)
		return false, recheck, nil
	}
	logger.Info("deleting the object: its Workflow is gone", "workflow", w.String(), "reason", why)
	// The precondition keeps a new object of the same name.
	uid := obj.GetUID()
	if err := c.Client.Delete(ctx, obj, client.Preconditions{UID: &uid}); err != nil {
		return apierrors.IsNotFound(err), 0, client.IgnoreNotFound(err)
	}
	c.Recorder.Event(obj, corev1.EventTypeNormal, ReasonWorkflowGone, why+": deleting what its campaign made")
	return true, 0, nil
}

// Sooner is res, requeued after recheck at the latest (recheck zero: res).
func Sooner(res ctrl.Result, recheck time.Duration) ctrl.Result {
	if recheck > 0 && (res.RequeueAfter == 0 || recheck < res.RequeueAfter) {
		res.RequeueAfter = recheck
	}
	return res
}
