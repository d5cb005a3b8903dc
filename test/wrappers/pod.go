package wrappers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// PodWrapper builds a Pod, its status included.
type PodWrapper struct{ corev1.Pod }

// MakePod is pod ns/name with an empty spec and status.
func MakePod(name, ns string) *PodWrapper {
	return &PodWrapper{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}}
}

// Obj returns a copy of the pod.
func (w *PodWrapper) Obj() *corev1.Pod { return w.DeepCopy() }

// Clone returns a new wrapper of a copy of the pod.
func (w *PodWrapper) Clone() *PodWrapper { return &PodWrapper{*w.DeepCopy()} }

// Label adds a label.
func (w *PodWrapper) Label(k, v string) *PodWrapper {
	mergeLabels(&w.ObjectMeta.Labels, map[string]string{k: v})
	return w
}

// Labels adds labels.
func (w *PodWrapper) Labels(labels map[string]string) *PodWrapper {
	mergeLabels(&w.ObjectMeta.Labels, labels)
	return w
}

// Annotations adds annotations.
func (w *PodWrapper) Annotations(annotations map[string]string) *PodWrapper {
	mergeLabels(&w.ObjectMeta.Annotations, annotations)
	return w
}

// ControlledBy makes owner, of kind gvk, the pod's controller.
func (w *PodWrapper) ControlledBy(owner metav1.Object, gvk schema.GroupVersionKind) *PodWrapper {
	w.OwnerReferences = append(w.OwnerReferences, *metav1.NewControllerRef(owner, gvk))
	return w
}

// CreationTimestamp sets metadata.creationTimestamp.
func (w *PodWrapper) CreationTimestamp(t time.Time) *PodWrapper {
	w.ObjectMeta.CreationTimestamp = metav1.NewTime(t)
	return w
}

// Deleted is a deletion asked at with a grace period of grace seconds: the
// deletionTimestamp is the end of the grace period, as the API server sets it.
func (w *PodWrapper) Deleted(at time.Time, grace int64) *PodWrapper {
	w.DeletionTimestamp = ptr.To(metav1.NewTime(at.Add(time.Duration(grace) * time.Second)))
	w.DeletionGracePeriodSeconds = &grace
	return w
}

// Spec replaces the spec with a copy of spec, keeping a node name set
// before.
func (w *PodWrapper) Spec(spec corev1.PodSpec) *PodWrapper {
	node := w.Pod.Spec.NodeName
	w.Pod.Spec = *spec.DeepCopy()
	if w.Pod.Spec.NodeName == "" {
		w.Pod.Spec.NodeName = node
	}
	return w
}

// NodeName puts the pod on a node.
func (w *PodWrapper) NodeName(node string) *PodWrapper {
	w.Pod.Spec.NodeName = node
	return w
}

// Container adds a container.
func (w *PodWrapper) Container(name, image string) *PodWrapper {
	w.Pod.Spec.Containers = append(w.Pod.Spec.Containers, corev1.Container{Name: name, Image: image})
	return w
}

// Phase sets status.phase.
func (w *PodWrapper) Phase(p corev1.PodPhase) *PodWrapper {
	w.Status.Phase = p
	return w
}

// StartTime sets status.startTime.
func (w *PodWrapper) StartTime(t time.Time) *PodWrapper {
	w.Status.StartTime = ptr.To(metav1.NewTime(t))
	return w
}

// Reason sets status.reason and status.message, as an eviction does.
func (w *PodWrapper) Reason(reason, message string) *PodWrapper {
	w.Status.Reason, w.Status.Message = reason, message
	return w
}

// Condition adds a status condition.
func (w *PodWrapper) Condition(c corev1.PodCondition) *PodWrapper {
	w.Status.Conditions = append(w.Status.Conditions, c)
	return w
}

// Unschedulable adds condition PodScheduled False, reason Unschedulable,
// with the scheduler's message.
func (w *PodWrapper) Unschedulable(message string) *PodWrapper {
	return w.Condition(corev1.PodCondition{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: message,
	})
}

// ContainerStatus adds the status of a main container.
func (w *PodWrapper) ContainerStatus(cs corev1.ContainerStatus) *PodWrapper {
	w.Status.ContainerStatuses = append(w.Status.ContainerStatuses, cs)
	return w
}

// InitContainerStatus adds the status of an init container.
func (w *PodWrapper) InitContainerStatus(cs corev1.ContainerStatus) *PodWrapper {
	w.Status.InitContainerStatuses = append(w.Status.InitContainerStatuses, cs)
	return w
}

// ContainerTerminated adds a main container that exited with code.
func (w *PodWrapper) ContainerTerminated(name string, code int32) *PodWrapper {
	return w.ContainerStatus(terminated(name, code))
}

// InitContainerTerminated adds an init container that exited with code.
func (w *PodWrapper) InitContainerTerminated(name string, code int32) *PodWrapper {
	return w.InitContainerStatus(terminated(name, code))
}

// ContainerWaiting adds a main container waiting for reason.
func (w *PodWrapper) ContainerWaiting(name, reason, message string) *PodWrapper {
	return w.ContainerStatus(waiting(name, reason, message))
}

// InitContainerWaiting adds an init container waiting for reason.
func (w *PodWrapper) InitContainerWaiting(name, reason, message string) *PodWrapper {
	return w.InitContainerStatus(waiting(name, reason, message))
}

// ContainerRunning adds a main container that runs.
func (w *PodWrapper) ContainerRunning(name string) *PodWrapper {
	return w.ContainerStatus(corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
}

func terminated(name string, code int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
}

func waiting(name, reason, message string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
}
