package wrappers

import (
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// JobWrapper builds a batch/v1 Job.
type JobWrapper struct{ batchv1.Job }

// MakeJob is Job ns/name with an empty spec and status.
func MakeJob(name, ns string) *JobWrapper {
	return &JobWrapper{batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}}
}

// Obj returns a copy of the Job.
func (w *JobWrapper) Obj() *batchv1.Job { return w.DeepCopy() }

// Clone returns a new wrapper of a copy of the Job.
func (w *JobWrapper) Clone() *JobWrapper { return &JobWrapper{*w.DeepCopy()} }

// Label adds a label.
func (w *JobWrapper) Label(k, v string) *JobWrapper {
	mergeLabels(&w.ObjectMeta.Labels, map[string]string{k: v})
	return w
}

// UID sets metadata.uid.
func (w *JobWrapper) UID(uid string) *JobWrapper {
	w.ObjectMeta.UID = types.UID(uid)
	return w
}

// Labels adds labels.
func (w *JobWrapper) Labels(labels map[string]string) *JobWrapper {
	mergeLabels(&w.ObjectMeta.Labels, labels)
	return w
}

// ControlledBy makes owner, of kind gvk, the Job's controller.
func (w *JobWrapper) ControlledBy(owner metav1.Object, gvk schema.GroupVersionKind) *JobWrapper {
	w.OwnerReferences = append(w.OwnerReferences, *metav1.NewControllerRef(owner, gvk))
	return w
}

// CreationTimestamp sets metadata.creationTimestamp.
func (w *JobWrapper) CreationTimestamp(t time.Time) *JobWrapper {
	w.ObjectMeta.CreationTimestamp = metav1.NewTime(t)
	return w
}

// Condition adds a true status condition.
func (w *JobWrapper) Condition(typ batchv1.JobConditionType, reason, message string) *JobWrapper {
	w.Status.Conditions = append(w.Status.Conditions, batchv1.JobCondition{
		Type: typ, Status: corev1.ConditionTrue, Reason: reason, Message: message,
	})
	return w
}

// MPIJobWrapper builds a kubeflow.org/v2beta1 MPIJob.
type MPIJobWrapper struct{ mpiv2.MPIJob }

// MakeMPIJob is MPIJob ns/name with one launcher and no worker.
func MakeMPIJob(name, ns string) *MPIJobWrapper {
	return &MPIJobWrapper{mpiv2.MPIJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: mpiv2.MPIJobSpec{MPIReplicaSpecs: map[mpiv2.MPIReplicaType]*mpiv2.ReplicaSpec{
			mpiv2.MPIReplicaTypeLauncher: {Replicas: ptr.To[int32](1)},
		}},
	}}
}

// Obj returns a copy of the MPIJob.
func (w *MPIJobWrapper) Obj() *mpiv2.MPIJob { return w.DeepCopy() }

// Clone returns a new wrapper of a copy of the MPIJob.
func (w *MPIJobWrapper) Clone() *MPIJobWrapper { return &MPIJobWrapper{*w.DeepCopy()} }

// CreationTimestamp sets metadata.creationTimestamp.
func (w *MPIJobWrapper) CreationTimestamp(t time.Time) *MPIJobWrapper {
	w.ObjectMeta.CreationTimestamp = metav1.NewTime(t)
	return w
}

// Spec replaces the whole spec with a copy of spec.
func (w *MPIJobWrapper) Spec(spec mpiv2.MPIJobSpec) *MPIJobWrapper {
	w.MPIJob.Spec = *spec.DeepCopy()
	return w
}

// Workers sets the number of workers.
func (w *MPIJobWrapper) Workers(n int32) *MPIJobWrapper {
	if w.MPIJob.Spec.MPIReplicaSpecs == nil {
		w.MPIJob.Spec.MPIReplicaSpecs = map[mpiv2.MPIReplicaType]*mpiv2.ReplicaSpec{}
	}
	specs := w.MPIJob.Spec.MPIReplicaSpecs
	if specs[mpiv2.MPIReplicaTypeWorker] == nil {
		specs[mpiv2.MPIReplicaTypeWorker] = &mpiv2.ReplicaSpec{}
	}
	specs[mpiv2.MPIReplicaTypeWorker].Replicas = &n
	return w
}

// Conditions adds status conditions.
func (w *MPIJobWrapper) Conditions(cs ...mpiv2.JobCondition) *MPIJobWrapper {
	w.Status.Conditions = append(w.Status.Conditions, cs...)
	return w
}
