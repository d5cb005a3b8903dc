package managercache

import (
	"reflect"
	"testing"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// byObject is the cache's setting for obj's kind.
func byObject(opts cache.Options, obj client.Object) (cache.ByObject, bool) {
	for o, b := range opts.ByObject {
		if reflect.TypeOf(o) == reflect.TypeOf(obj) {
			return b, true
		}
	}
	return cache.ByObject{}, false
}

// transform applies the cache's transform for obj's kind, as the cache does.
func transform(t *testing.T, obj client.Object) client.Object {
	t.Helper()
	opts := Options("tuners")
	tr := opts.DefaultTransform
	if b, ok := byObject(opts, obj); ok && b.Transform != nil {
		tr = b.Transform
	}
	out, err := tr(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out.(client.Object)
}

// objectMeta is the metadata of a child benchwright made.
func objectMeta() metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: "x", Namespace: "ns",
		Labels:        map[string]string{benchv1.KindLabel: "MPIBenchmark"},
		Annotations:   map[string]string{"benchwright.io/node-facts": "{}"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "benchwright"}},
	}
}

func template() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "nodefacts"}},
		Containers:     []corev1.Container{{Name: "bench", Image: "img"}},
	}}
}

// checkMeta: every transform drops managedFields and keeps labels and
// annotations.
func checkMeta(t *testing.T, o client.Object) {
	t.Helper()
	if o.GetManagedFields() != nil {
		t.Errorf("%T keeps managedFields", o)
	}
	if o.GetLabels()[benchv1.KindLabel] == "" || o.GetAnnotations()["benchwright.io/node-facts"] == "" {
		t.Errorf("%T lost labels or annotations: %v %v", o, o.GetLabels(), o.GetAnnotations())
	}
}

func TestMPIJobKeepsReplicasAndStatusNotTemplates(t *testing.T) {
	job := &mpiv2.MPIJob{ObjectMeta: objectMeta(), Spec: mpiv2.MPIJobSpec{
		SlotsPerWorker: ptr.To[int32](2),
		MPIReplicaSpecs: map[mpiv2.MPIReplicaType]*mpiv2.ReplicaSpec{
			mpiv2.MPIReplicaTypeLauncher: {Replicas: ptr.To[int32](1), Template: template()},
			mpiv2.MPIReplicaTypeWorker:   {Replicas: ptr.To[int32](4), Template: template()},
		},
	}, Status: mpiv2.JobStatus{Conditions: []mpiv2.JobCondition{{Type: mpiv2.JobSucceeded}}}}
	got := transform(t, job).(*mpiv2.MPIJob)
	checkMeta(t, got)
	for typ, spec := range got.Spec.MPIReplicaSpecs {
		if len(spec.Template.Spec.InitContainers)+len(spec.Template.Spec.Containers) != 0 {
			t.Errorf("%s template kept: %v", typ, spec.Template.Spec.Containers)
		}
	}
	if w := got.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker]; w == nil || *w.Replicas != 4 {
		t.Errorf("worker replicas lost: %+v", w)
	}
	if *got.Spec.SlotsPerWorker != 2 || len(got.Status.Conditions) != 1 {
		t.Errorf("slots or status lost: %+v", got)
	}
}

func TestJobKeepsStatusNotTemplate(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: objectMeta(), Spec: batchv1.JobSpec{
		BackoffLimit: ptr.To[int32](3), Template: template(),
	}, Status: batchv1.JobStatus{Succeeded: 1}}
	got := transform(t, job).(*batchv1.Job)
	checkMeta(t, got)
	if len(got.Spec.Template.Spec.Containers) != 0 {
		t.Errorf("template kept: %v", got.Spec.Template.Spec.Containers)
	}
	if *got.Spec.BackoffLimit != 3 || got.Status.Succeeded != 1 {
		t.Errorf("spec or status lost: %+v", got)
	}
}

func TestNodeKeepsFactsNotImages(t *testing.T) {
	node := &corev1.Node{ObjectMeta: objectMeta(), Status: corev1.NodeStatus{
		Images:   []corev1.ContainerImage{{Names: []string{"img"}}},
		Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
		NodeInfo: corev1.NodeSystemInfo{KernelVersion: "6.1"},
	}}
	got := transform(t, node).(*corev1.Node)
	checkMeta(t, got)
	if got.Status.Images != nil {
		t.Errorf("images kept: %v", got.Status.Images)
	}
	if got.Status.Capacity.Cpu().Value() != 4 || got.Status.NodeInfo.KernelVersion != "6.1" {
		t.Errorf("capacity or node info lost: %+v", got.Status)
	}
}

// A pod's input (the fio job file, the launcher's steps) is not cached; its
// other annotations are.
func TestPodDropsInputs(t *testing.T) {
	for _, key := range []string{benchv1.FioJobFileAnnotation, benchv1.MPIStepsAnnotation} {
		pod := &corev1.Pod{ObjectMeta: objectMeta(), Spec: template().Spec}
		pod.Annotations[key] = "[randread]\nrw=randread\n"
		got := transform(t, pod).(*corev1.Pod)
		checkMeta(t, got)
		if _, ok := got.Annotations[key]; ok || len(got.Annotations) != 1 {
			t.Errorf("%s: annotations %v", key, got.Annotations)
		}
	}
}

// A pod keeps its spec, and its status with the node-facts step's
// termination message (children.ReadNodeFacts).
func TestPodKeepsSpecAndMessages(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: objectMeta(), Spec: template().Spec, Status: corev1.PodStatus{
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "nodefacts", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{Message: "benchwright-nodefacts: {}"},
		}}},
	}}
	got := transform(t, pod).(*corev1.Pod)
	checkMeta(t, got)
	if len(got.Spec.InitContainers) != 1 || len(got.Spec.Containers) != 1 {
		t.Errorf("pod spec lost: %+v", got.Spec)
	}
	if s := got.Status.InitContainerStatuses; len(s) != 1 || s[0].State.Terminated == nil || s[0].State.Terminated.Message == "" {
		t.Errorf("termination message lost: %+v", got.Status)
	}
}

// TestChildrenSelectedByKindLabel: of the kinds every cluster has many of,
// only benchwright's children are cached; the tuners' DaemonSets and
// ConfigMaps only in their namespace.
func TestChildrenSelectedByKindLabel(t *testing.T) {
	opts := Options("tuners")
	mine := labels.Set{benchv1.KindLabel: "StorageBenchmark"}
	for _, obj := range []client.Object{&corev1.Pod{}, &batchv1.Job{}, &corev1.PersistentVolumeClaim{}, &corev1.ConfigMap{}, &mpiv2.MPIJob{}, &appsv1.DaemonSet{}} {
		b, ok := byObject(opts, obj)
		if !ok || b.Label == nil {
			t.Errorf("%T: no label selector", obj)
			continue
		}
		if !b.Label.Matches(mine) || b.Label.Matches(labels.Set{"app": "other"}) {
			t.Errorf("%T: selector %s", obj, b.Label)
		}
	}
	for _, obj := range []client.Object{&appsv1.DaemonSet{}, &corev1.ConfigMap{}} {
		b, _ := byObject(opts, obj)
		if _, ok := b.Namespaces["tuners"]; !ok || len(b.Namespaces) != 1 {
			t.Errorf("%T cached in %v, want the tuners' namespace alone", obj, b.Namespaces)
		}
	}
	if node, _ := byObject(opts, &corev1.Node{}); node.Label != nil {
		t.Errorf("Nodes selected by %s: every node is read", node.Label)
	}
}
