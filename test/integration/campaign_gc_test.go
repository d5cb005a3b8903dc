package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/controllers/tuningprofile"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/campaigngc"
	"github.com/benchwright/benchwright/test/util"
)

// gcRecheck is how often the tests' controllers look their Workflow up.
const gcRecheck = 200 * time.Millisecond

// newCampaignGCEnv runs the BenchmarkPool and TuningProfile controllers in
// one manager, as cmd/manager does, with tunerNodes standing in for the
// tuner DaemonSets' pods. It skips without Argo's Workflow CRD.
func newCampaignGCEnv(t *testing.T) *tuningEnv {
	t.Helper()
	if noArgo != "" {
		t.Skip(noArgo)
	}
	ns := testNamespace(t, "gc-")
	e := &tuningEnv{ns: ns, nodes: &tunerNodes{t: t, ns: ns, roots: map[string]string{}, logs: map[string][]byte{}}}
	startController(t, ns, func(mgr ctrl.Manager, _ *artifacts.Store) error {
		if err := (&tuningprofile.Reconciler{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
			Recorder: mgr.GetEventRecorderFor("tuningprofile-controller"), Logs: e.nodes,
			Image: "registry.example/tuner:test", Namespace: ns, Poll: 200 * time.Millisecond, WorkflowRecheck: gcRecheck,
		}).SetupWithManager(mgr); err != nil {
			return err
		}
		return (&benchmarkpool.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
			Recorder: mgr.GetEventRecorderFor("benchmarkpool-controller"), WorkflowRecheck: gcRecheck}).SetupWithManager(mgr)
	}, e.nodes.run)
	return e
}

// createWorkflow creates an Argo Workflow (no Argo controller runs it).
func createWorkflow(t *testing.T, ns, name string) *unstructured.Unstructured {
	t.Helper()
	wf := &unstructured.Unstructured{}
	wf.SetGroupVersionKind(campaigngc.WorkflowKind)
	wf.SetNamespace(ns)
	wf.SetName(name)
	if err := unstructured.SetNestedField(wf.Object, "main", "spec", "entrypoint"); err != nil {
		t.Fatal(err)
	}
	if err := k8sClient.Create(context.Background(), wf); err != nil {
		t.Fatalf("creating Workflow %s: %v", name, err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), wf) })
	return wf
}

// madeBy is the metadata a campaign step gives an object: the campaign
// label, and the annotations naming wf with uid.
func madeBy(name string, wf *unstructured.Unstructured, uid types.UID) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: map[string]string{benchv1.CampaignLabel: wf.GetName()}, Annotations: map[string]string{
		benchv1.WorkflowAnnotation: wf.GetNamespace() + "/" + wf.GetName(), benchv1.WorkflowUIDAnnotation: string(uid),
	}}
}

// createCleaned creates obj and, when the test ends (its controllers still
// running, for the finalizers), deletes it and waits until it is gone.
func createCleaned(t *testing.T, e *tuningEnv, obj client.Object) {
	t.Helper()
	if err := k8sClient.Create(context.Background(), obj); err != nil {
		t.Fatalf("creating %s: %v", obj.GetName(), err)
	}
	t.Cleanup(func() {
		e.nodes.mu.Lock()
		e.nodes.down = nil
		e.nodes.mu.Unlock()
		_ = k8sClient.Delete(context.Background(), obj)
		waitGone(t, obj, 30*time.Second)
	})
}

func existingPool(meta metav1.ObjectMeta, selector map[string]string) *benchv1.BenchmarkPool {
	return &benchv1.BenchmarkPool{ObjectMeta: meta, Spec: benchv1.BenchmarkPoolSpec{
		Provider: benchv1.ProviderExisting, Existing: &benchv1.ExistingPoolSpec{NodeSelector: selector}}}
}

func swappinessProfile(meta metav1.ObjectMeta, pool string) *benchv1.TuningProfile {
	return &benchv1.TuningProfile{ObjectMeta: meta, Spec: benchv1.TuningProfileSpec{
		Pool: benchv1.PoolName(pool), Sysctls: []benchv1.Sysctl{{Name: "vm.swappiness", Value: "10"}}}}
}

// waitEvent waits for an Event of reason on the object kind/name whose
// message holds want.
func waitEvent(t *testing.T, kind, name, reason, want string) {
	t.Helper()
	util.WaitFor(t, 10*time.Second, fmt.Sprintf("a %s Event on %s %s", reason, kind, name), func() (bool, string) {
		var events corev1.EventList
		if err := k8sClient.List(context.Background(), &events); err != nil {
			t.Fatal(err)
		}
		var seen []string
		for _, ev := range events.Items {
			if ev.InvolvedObject.Kind == kind && ev.InvolvedObject.Name == name {
				seen = append(seen, ev.Reason+": "+ev.Message)
				if ev.Reason == reason && strings.Contains(ev.Message, want) {
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("events %q", seen)
	})
}

// stays fails unless each object still exists, not being deleted, after a
// few of its controllers' Workflow lookups.
func stays(t *testing.T, objs ...client.Object) {
	t.Helper()
	time.Sleep(5 * gcRecheck)
	for _, obj := range objs {
		got := obj.DeepCopyObject().(client.Object)
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), got); err != nil {
			t.Errorf("%T %s: %v", obj, obj.GetName(), err)
		} else if !got.GetDeletionTimestamp().IsZero() {
			t.Errorf("%T %s is being deleted", obj, obj.GetName())
		}
	}
}

// A campaign's pool and tuning stay while the Workflow that made them
// exists. Once it is deleted (mid-run: no exit handler deletes them), both
// are deleted: the tuning restores the nodes while the pool, deleted too,
// keeps them (a node whose kubelet is stopped holds both), then the pool
// releases them.
func TestCampaignObjectsGoWithTheirWorkflow(t *testing.T) {
	e := newCampaignGCEnv(t)
	ctx := context.Background()
	wf := createWorkflow(t, e.ns, "gc-ladder")
	const name = "gc-ladder-c2"
	selector := map[string]string{"benchwright.io/test": name}
	nodes := []string{name + "-1", name + "-2"}
	for _, n := range nodes {
		e.nodes.addNode(t, n, optedIn(selector), nil, false)
	}
	pool := existingPool(madeBy(name, wf, wf.GetUID()), selector)
	createCleaned(t, e, pool)
	profile := swappinessProfile(madeBy(name, wf, wf.GetUID()), name)
	createCleaned(t, e, profile)
	waitProfile(t, name, "Tuned on both nodes", func(p *benchv1.TuningProfile) bool { return isTuned(p) && p.Status.TunedNodes == 2 })
	for _, n := range nodes {
		if got := e.nodes.value(t, n, "proc/sys/vm/swappiness"); got != "10" {
			t.Fatalf("%s: swappiness %q, want 10", n, got)
		}
	}
	stays(t, pool, profile)

	e.nodes.setDown(nodes[1], true) // its restore cannot be confirmed yet
	if err := k8sClient.Delete(ctx, wf); err != nil {
		t.Fatal(err)
	}
	waitProfile(t, name, "restoring, "+nodes[0]+" confirmed", func(p *benchv1.TuningProfile) bool {
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionTuned)
		return !p.DeletionTimestamp.IsZero() && c != nil && c.Reason == benchv1.ReasonRestoring &&
			strings.Contains(c.Message, "1/2 node(s) confirmed restored")
	})
	e.nodes.untouched(t, nodes[0])
	util.WaitFor(t, 10*time.Second, "the pool deleted, keeping its nodes for the restore", func() (bool, string) {
		p := getPool(t, name)
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionDeleting)
		return !p.DeletionTimestamp.IsZero() && c != nil && c.Reason == "RestoringNodes" && strings.Contains(c.Message, "TuningProfile "+name) &&
			p.Status.State == "Deleting", pretty(p.Status)
	})
	for _, n := range nodes {
		if got := getNode(t, n); got.Labels[benchv1.PoolLabel] != name || !hasPoolTaint(got) {
			t.Errorf("node %s released before the TuningProfile restored it: %v %v", n, got.Labels, got.Spec.Taints)
		}
	}
	why := "Workflow " + e.ns + "/gc-ladder is gone: deleting what its campaign made"
	waitEvent(t, "TuningProfile", name, campaigngc.ReasonWorkflowGone, why)
	waitEvent(t, "BenchmarkPool", name, campaigngc.ReasonWorkflowGone, why)

	e.nodes.setDown(nodes[1], false)
	waitGone(t, profile, 10*time.Second)
	waitGone(t, pool, 10*time.Second)
	for _, n := range nodes {
		e.nodes.untouched(t, n)
		if got := getNode(t, n); got.Labels[benchv1.PoolLabel] != "" || hasPoolTaint(got) {
			t.Errorf("node %s kept the pool's label or taint: %v %v", n, got.Labels, got.Spec.Taints)
		}
	}
}

// Objects that name a Workflow by a UID other than the live one's (a new
// Workflow of the old one's name) are deleted; the live one's stay.
func TestCampaignObjectsOfAReplacedWorkflowGo(t *testing.T) {
	e := newCampaignGCEnv(t)
	wf := createWorkflow(t, e.ns, "gc-reused")
	stale := types.UID("0a0b0c0d-0000-4000-8000-000000000000")
	pool := existingPool(madeBy("gc-reused-old", wf, stale), map[string]string{"benchwright.io/test": "gc-reused-old"})
	profile := swappinessProfile(madeBy("gc-reused-old", wf, stale), "gc-reused-old")
	live := existingPool(madeBy("gc-reused-new", wf, wf.GetUID()), map[string]string{"benchwright.io/test": "gc-reused-new"})
	for _, obj := range []client.Object{pool, profile, live} {
		createCleaned(t, e, obj)
	}
	waitGone(t, profile, 10*time.Second)
	waitGone(t, pool, 10*time.Second)
	why := fmt.Sprintf("Workflow %s/gc-reused with UID %s is gone (one of that name with UID %s replaced it)", e.ns, stale, wf.GetUID())
	waitEvent(t, "BenchmarkPool", pool.Name, campaigngc.ReasonWorkflowGone, why)
	waitEvent(t, "TuningProfile", profile.Name, campaigngc.ReasonWorkflowGone, why)
	stays(t, live)
}

// An object without both annotations is never collected, though its
// campaign label names a Workflow that does not exist (a pool labelled by
// hand), nor is one whose annotation is not NAMESPACE/NAME.
func TestCampaignObjectsWithoutTheWorkflowAnnotationsStay(t *testing.T) {
	e := newCampaignGCEnv(t)
	labelled := metav1.ObjectMeta{Name: "gc-by-hand", Labels: map[string]string{benchv1.CampaignLabel: "gc-by-hand"}}
	nameOnly := *labelled.DeepCopy()
	nameOnly.Name, nameOnly.Annotations = "gc-by-hand-name", map[string]string{benchv1.WorkflowAnnotation: e.ns + "/gc-by-hand"}
	malformed := *labelled.DeepCopy()
	malformed.Name, malformed.Annotations = "gc-by-hand-malformed", map[string]string{
		benchv1.WorkflowAnnotation: "gc-by-hand", benchv1.WorkflowUIDAnnotation: "0a0b0c0d-0000-4000-8000-000000000000"}
	selector := map[string]string{"benchwright.io/test": "gc-by-hand"}
	objs := []client.Object{
		existingPool(labelled, selector), swappinessProfile(labelled, "gc-by-hand"),
		existingPool(nameOnly, selector), existingPool(malformed, selector),
	}
	for _, obj := range objs {
		createCleaned(t, e, obj)
	}
	for _, obj := range objs {
		util.WaitFor(t, 10*time.Second, obj.GetName()+" reconciled", func() (bool, string) {
			got := obj.DeepCopyObject().(client.Object)
			if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), got); err != nil {
				t.Fatal(err)
			}
			return len(got.GetFinalizers()) > 0, "no finalizer yet"
		})
	}
	stays(t, objs...)
}
