// Package tuningprofile reconciles TuningProfiles: the profile's settings
// expanded into status.requested, a ConfigMap with them and a DaemonSet that
// runs the tuner (cmd/tuner) on the selected nodes only, the nodes' reports
// read from the tuner pods' logs into the status, and on deletion the nodes
// restored before the profile goes.
package tuningprofile

import (
	"cmp"
	"context"
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaigngc"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/statusupdate"
	"github.com/benchwright/benchwright/internal/tuning"
)

// DefaultServiceAccount runs the tuner pods. Nothing is bound to it: the
// tuner talks to no API, it reports through its log.
const DefaultServiceAccount = "benchwright-tuner"

// defaultPoll is how often a profile that is not Tuned is looked at again;
// a Tuned one is looked at every tunedPolls polls, to see drift.
const (
	defaultPoll = 10 * time.Second
	tunedPolls  = 6
)

// Reconciler reconciles TuningProfiles.
type Reconciler struct {
	client.Client
	// APIReader reads around the cache (see children.Kit): a foreign object
	// that blocks a child's name, or a profile newer than the cache's copy.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  record.EventRecorder
	// Logs reads the tuner pods' reports from their logs (only their end when
	// it is a TailReader).
	Logs podlogs.LogReader
	// Image is the tuner's image.
	Image string
	// Namespace holds the tuner DaemonSets and ConfigMaps (the manager's).
	Namespace string
	// ServiceAccount of the tuner pods (DefaultServiceAccount when empty).
	ServiceAccount string
	// Poll is how often tuner logs are read while a profile is not Tuned
	// (default 10s); pod logs cannot be watched.
	Poll time.Duration
	// WorkflowRecheck is how often a campaign's profile looks up the
	// Workflow that made it (campaigngc.DefaultRecheck when zero).
	WorkflowRecheck time.Duration
}

func (r *Reconciler) poll() time.Duration { return cmp.Or(r.Poll, defaultPoll) }

// collector deletes a campaign's profile once its Workflow is gone.
func (r *Reconciler) collector() campaigngc.Collector {
	return campaigngc.Collector{Reader: r.APIReader, Client: r.Client, Recorder: r.Recorder, Recheck: r.WorkflowRecheck}
}

// kit checks the children, reading around the cache when an APIReader is set.
func (r *Reconciler) kit() children.Kit { return children.NewKit(r.Client, r.APIReader, r.Scheme) }

// +kubebuilder:rbac:groups=benchwright.io,resources=tuningprofiles,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=benchwright.io,resources=tuningprofiles/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=benchwright.io,resources=tuningprofiles/finalizers,verbs=update
// The tuner's DaemonSets and ConfigMaps live in the manager's namespace only:
// a Role there (config/rbac's benchwright-system; the chart's release
// namespace), and the manager caches DaemonSets of that namespace alone.
// +kubebuilder:rbac:groups=apps,resources=daemonsets,verbs=get;list;watch;create;update;patch;delete,namespace=benchwright-system
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete,namespace=benchwright-system
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools,verbs=get;list;watch

// Reconcile brings a profile's tuner to its nodes and its nodes' reports to
// its status, or restores the nodes of a deleted profile.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// A write that lost to another is a quiet requeue, not an error.
	return statusupdate.Quiet(r.reconcile(ctx, req))
}

func (r *Reconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var p benchv1.TuningProfile
	if err := r.Get(ctx, req.NamespacedName, &p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !p.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &p)
	}
	deleted, recheck, err := r.collector().Collect(ctx, &p)
	if deleted || err != nil {
		return ctrl.Result{}, err // a deletion reconciles again, to restore the nodes
	}
	if err := statusupdate.AddFinalizer(ctx, r.Client, &p, finalizer); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := p.DeepCopy()
	res, err := r.advance(ctx, &p)
	if err != nil {
		return ctrl.Result{}, err
	}
	switch written, err := r.writeStatus(ctx, &p, before); {
	case err != nil:
		return ctrl.Result{}, err
	case written == statusupdate.Conflicted:
		return ctrl.Result{RequeueAfter: statusupdate.ConflictRetry}, nil
	}
	return campaigngc.Sooner(res, recheck), nil
}

// advance applies the children and computes the status.
func (r *Reconciler) advance(ctx context.Context, p *benchv1.TuningProfile) (ctrl.Result, error) {
	settings, err := tuning.Expand(&p.Spec)
	if err != nil {
		p.Status.Requested = nil
		setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonInvalidSpec, err.Error())
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionTrue, benchv1.ReasonInvalidSpec, err.Error())
		return ctrl.Result{}, nil // a spec change reconciles again
	}
	p.Status.Requested = requested(settings)
	if why, err := r.outsideCampaign(ctx, p); err != nil {
		return ctrl.Result{}, err
	} else if why != "" {
		setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonPoolNotInCampaign, why)
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionTrue, benchv1.ReasonPoolNotInCampaign, why)
		return ctrl.Result{RequeueAfter: r.poll()}, nil
	}
	data := settingsJSON(p, settings)
	children := []client.Object{
		constructConfigMap(p, r.Namespace, data),
		constructTunerDaemonSet(p, tunerParams{
			namespace: r.Namespace, image: r.Image, settingsHash: hash(data),
			serviceAccount: cmp.Or(r.ServiceAccount, DefaultServiceAccount),
		}),
	}
	for _, c := range children {
		var conflict *conflictError
		if err := r.applyChild(ctx, p, c); errors.As(err, &conflict) {
			setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonNameConflict, conflict.Error())
			setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionTrue, benchv1.ReasonNameConflict, conflict.Error())
			return ctrl.Result{RequeueAfter: r.poll()}, nil
		} else if err != nil {
			return ctrl.Result{}, err
		}
	}
	nodes, err := r.selectedNodes(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	states, err := r.observe(ctx, p, nodes)
	if err != nil {
		return ctrl.Result{}, err
	}
	setStatus(p, states)
	if meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.TuningConditionTuned) {
		return ctrl.Result{RequeueAfter: tunedPolls * r.poll()}, nil
	}
	return ctrl.Result{RequeueAfter: r.poll()}, nil
}

// writeStatus writes the status once, when it changed, and then records
// the events of the conditions that changed.
func (r *Reconciler) writeStatus(ctx context.Context, p, before *benchv1.TuningProfile) (statusupdate.Written, error) {
	p.Status.ObservedGeneration = p.Generation
	p.Status.State = stateOf(p)
	events := statusupdate.NewEvents(r.Recorder)
	was := func(typ string) *metav1.Condition { return meta.FindStatusCondition(before.Status.Conditions, typ) }
	if c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionTuned); c != nil && c.Status == metav1.ConditionTrue &&
		(was(c.Type) == nil || was(c.Type).Status != metav1.ConditionTrue) {
		events.Event(p, corev1.EventTypeNormal, "Tuned", c.Message)
	}
	if c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionDegraded); c != nil && c.Status == metav1.ConditionTrue &&
		(was(c.Type) == nil || was(c.Type).Status != metav1.ConditionTrue || was(c.Type).Reason != c.Reason) {
		events.Event(p, corev1.EventTypeWarning, c.Reason, c.Message)
	}
	written, err := statusupdate.Write(ctx, r.Client, before, p, events)
	if written == statusupdate.Updated {
		log.FromContext(ctx).V(1).Info("status written", "tuned", p.Status.TunedNodes, "desired", p.Status.DesiredNodes)
	}
	return written, err
}

// SetupWithManager registers the controller: it watches profiles, the
// tuner DaemonSets and pods in its namespace, and nodes (whose labels and
// taints decide where a profile applies).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.TuningProfile{}).
		Watches(&appsv1.DaemonSet{}, handler.EnqueueRequestsFromMapFunc(r.profileOf)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.profileOf)).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.allProfiles), builder.WithPredicates(placementChanged)).
		Named("tuningprofile").
		Complete(r)
}

// profileOf maps a tuner child to its profile.
func (r *Reconciler) profileOf(_ context.Context, obj client.Object) []reconcile.Request {
	name := obj.GetAnnotations()[profileAnnotation]
	if obj.GetNamespace() != r.Namespace || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}

// allProfiles maps a node to every profile: profiles are few, and a node's
// labels decide which of them it belongs to.
func (r *Reconciler) allProfiles(ctx context.Context, _ client.Object) []reconcile.Request {
	var list benchv1.TuningProfileList
	if err := r.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "listing TuningProfiles for a node event")
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, p := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: p.Name}})
	}
	return out
}

// placementChanged passes node events that can change where a profile
// applies: a node added or removed, its labels or taints changed.
var placementChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld.(*corev1.Node), e.ObjectNew.(*corev1.Node)
		return !equality.Semantic.DeepEqual(o.Labels, n.Labels) || !equality.Semantic.DeepEqual(o.Spec.Taints, n.Spec.Taints)
	},
}
