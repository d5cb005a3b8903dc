package integration

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/test/wrappers"
)

// fakeMPIOperator stands in for the MPI Operator and the kubelet, which
// envtest does not have: for each MPIJob in its namespace it creates the
// worker pods and the launcher pod from the MPIJob's templates, as the
// operator does, and writes their status and the MPIJob's conditions. The
// launcher's log is what the test's script says the launcher printed.
type fakeMPIOperator struct {
	fakeComponent
	namespace string
	// script decides each MPIJob's fate and its launcher's log.
	script func(job *mpiv2.MPIJob) mpiFate

	root string // the workers' termination message files

	mu   sync.Mutex
	logs map[string][]byte // "<pod>/<container>" -> log
}

// mpiFate is how an MPIJob ends.
type mpiFate struct {
	// pending leaves the workers unscheduled with this message.
	pending string
	// failReason fails the MPIJob with this reason (MPIJobEvicted,
	// BackoffLimitExceeded/...); the launcher pod fails too unless evicted.
	failReason, failMessage string
	// log is the launcher's output.
	log []byte
	// rogues are pods someone else who may create pods in the namespace
	// made beside the launcher, with the launcher's labels, Succeeded, each
	// printing rogueLog; none is in the launcher's owner chain.
	rogues   int
	rogueLog []byte
}

func newFakeMPIOperator(t *testing.T, namespace string, script func(*mpiv2.MPIJob) mpiFate) *fakeMPIOperator {
	return &fakeMPIOperator{fakeComponent: fakeComponent{t: t, name: "fake MPI Operator"}, namespace: namespace, script: script, root: t.TempDir(), logs: map[string][]byte{}}
}

// ReadLog serves the launcher's log, like the API server's pods/log.
func (o *fakeMPIOperator) ReadLog(_ context.Context, namespace, pod, container string) ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out, ok := o.logs[pod+"/"+container]
	if !ok || namespace != o.namespace {
		return nil, fmt.Errorf("pods %q not found or container %q has no log", pod, container)
	}
	return out, nil
}

// run handles MPIJobs until ctx ends.
func (o *fakeMPIOperator) run(ctx context.Context) {
	handleNew(ctx, o.namespace, func() client.ObjectList { return &mpiv2.MPIJobList{} },
		func(j *mpiv2.MPIJob) { o.handle(ctx, j) })
}

func (o *fakeMPIOperator) handle(ctx context.Context, job *mpiv2.MPIJob) {
	fate := o.script(job)
	now := metav1.Now()
	workers := job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker]
	for i := range int(*workers.Replicas) {
		node := ""
		if fate.pending == "" {
			node = fmt.Sprintf("node-%c", 'a'+i)
		}
		pod := o.pod(ctx, job, workers.Template, fmt.Sprintf("%s-worker-%d", job.Name, i), node)
		if pod == nil {
			return
		}
		if fate.pending != "" {
			pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: fate.pending, LastTransitionTime: now,
			}}}
		} else {
			pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &now, InitContainerStatuses: o.runInit(pod)}
		}
		o.report(ctx, "worker status: %v", k8sClient.Status().Update(ctx, pod))
	}
	job.Status.Conditions = []mpiv2.JobCondition{cond(mpiv2.JobCreated, "MPIJobCreated", now)}
	job.Status.StartTime = &now
	if fate.pending != "" {
		o.report(ctx, "MPIJob status: %v", updateJobStatus(ctx, job))
		return
	}
	// Workers ready: the launcher starts (launcherCreationPolicy:
	// WaitForWorkersReady), a pod of the batch Job <mpijob>-launcher the
	// MPIJob controls, as the MPI Operator v2 makes it.
	launcherSpec := job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeLauncher]
	launcherJob := o.launcherJob(ctx, job, launcherSpec.Template)
	if launcherJob == nil {
		return
	}
	launcher := o.podOf(ctx, launcherJob, batchv1.SchemeGroupVersion.WithKind("Job"), launcherSpec.Template, launcherJob.Name+"-x7k2p", "node-a")
	if launcher == nil {
		return
	}
	// The launcher starts once every worker exists, as the MPI Operator
	// starts it: a worker made after it would be a replacement. (Taken at
	// the start, with the workers' node-facts steps running one after
	// another, a second could tick between them and a worker look replaced.)
	launched := metav1.Now()
	o.mu.Lock()
	o.logs[launcher.Name+"/launcher"] = fate.log
	o.mu.Unlock()
	o.rogues(ctx, job, launcherSpec.Template, fate)
	job.Status.Conditions = append(job.Status.Conditions, cond(mpiv2.JobRunning, "MPIJobRunning", now))
	o.report(ctx, "MPIJob running: %v", updateJobStatus(ctx, job))

	end := metav1.Now()
	code, phase := int32(0), corev1.PodSucceeded
	if fate.failReason != "" {
		code, phase = 1, corev1.PodFailed
	}
	launcher.Status = corev1.PodStatus{Phase: phase, StartTime: &launched, ContainerStatuses: []corev1.ContainerStatus{{
		Name: "launcher", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: launched, FinishedAt: end}},
	}}}
	o.report(ctx, "launcher status: %v", k8sClient.Status().Update(ctx, launcher))
	running := job.Status.Conditions[1]
	running.Status = corev1.ConditionFalse
	job.Status.Conditions[1] = running
	if fate.failReason != "" {
		job.Status.Conditions = append(job.Status.Conditions, mpiv2.JobCondition{Type: mpiv2.JobFailed, Status: corev1.ConditionTrue,
			Reason: fate.failReason, Message: fate.failMessage, LastTransitionTime: end, LastUpdateTime: end})
	} else {
		job.Status.Conditions = append(job.Status.Conditions, cond(mpiv2.JobSucceeded, "MPIJobSucceeded", end))
		job.Status.CompletionTime = &end
	}
	o.report(ctx, "MPIJob finished: %v", updateJobStatus(ctx, job))
}

// launcherJob creates the batch Job <mpijob>-launcher the MPIJob controls,
// labelled app: <mpijob> only, as the MPI Operator's newLauncherJob does.
// envtest runs no Job controller: podOf makes its pod.
func (o *fakeMPIOperator) launcherJob(ctx context.Context, job *mpiv2.MPIJob, tmpl corev1.PodTemplateSpec) *batchv1.Job {
	tmpl = *tmpl.DeepCopy()
	if tmpl.Spec.RestartPolicy == "" || tmpl.Spec.RestartPolicy == corev1.RestartPolicyAlways {
		tmpl.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	}
	lj := wrappers.MakeJob(job.Name+"-launcher", job.Namespace).Labels(map[string]string{"app": job.Name}).
		ControlledBy(job, mpiv2.SchemeGroupVersionKind).Obj()
	lj.Spec.Template = tmpl
	if err := k8sClient.Create(ctx, lj); err != nil {
		o.report(ctx, "creating launcher Job %s: %v", lj.Name, err)
		return nil
	}
	return lj
}

// rogues creates fate.rogues pods with the launcher's labels, Succeeded,
// that are not the launcher: without an owner, controlled by the MPIJob
// itself (the launcher is not), and controlled by a Job of the launcher
// Job's name that is not it (another UID).
func (o *fakeMPIOperator) rogues(ctx context.Context, job *mpiv2.MPIJob, tmpl corev1.PodTemplateSpec, fate mpiFate) {
	for i := range fate.rogues {
		name := fmt.Sprintf("%s-launcher-rogue-%d", job.Name, i)
		w := wrappers.MakePod(name, job.Namespace).Labels(tmpl.Labels).Annotations(tmpl.Annotations).Spec(tmpl.Spec).NodeName("node-a")
		switch i % 3 {
		case 1:
			w = w.ControlledBy(job, mpiv2.SchemeGroupVersionKind)
		case 2:
			fake := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: job.Name + "-launcher", UID: types.UID(fmt.Sprintf("rogue-%d", i))}}
			w = w.ControlledBy(fake, batchv1.SchemeGroupVersion.WithKind("Job"))
		}
		rogue := w.Obj()
		if err := k8sClient.Create(ctx, rogue); err != nil {
			o.report(ctx, "creating rogue pod %s: %v", name, err)
			return
		}
		now := metav1.Now()
		rogue.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, StartTime: &now, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "launcher", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, StartedAt: now, FinishedAt: now}},
		}}}
		o.report(ctx, "rogue pod status: %v", k8sClient.Status().Update(ctx, rogue))
		o.mu.Lock()
		o.logs[name+"/launcher"] = fate.rogueLog
		o.mu.Unlock()
	}
}

// pod creates one worker pod from a replica template, controlled by the
// MPIJob.
func (o *fakeMPIOperator) pod(ctx context.Context, job *mpiv2.MPIJob, tmpl corev1.PodTemplateSpec, name, node string) *corev1.Pod {
	return o.podOf(ctx, job, mpiv2.SchemeGroupVersionKind, tmpl, name, node)
}

// podOf creates one pod from a replica template, controlled by owner,
// labelled as the operator labels it, with the template's annotations,
// which the operator copies.
func (o *fakeMPIOperator) podOf(ctx context.Context, owner metav1.Object, gvk schema.GroupVersionKind, tmpl corev1.PodTemplateSpec, name, node string) *corev1.Pod {
	job := strings.TrimSuffix(owner.GetName(), "-launcher")
	pod := wrappers.MakePod(name, owner.GetNamespace()).
		Labels(map[string]string{mpiv2.JobNameLabel: job, mpiv2.OperatorNameLabel: "mpi-operator"}).Labels(tmpl.Labels).Annotations(tmpl.Annotations).
		ControlledBy(owner, gvk).Spec(tmpl.Spec).NodeName(node).Obj()
	if len(pod.Spec.Containers) > 0 && pod.Spec.Containers[0].Image == "" {
		pod.Spec.Containers[0].Image = "unset"
	}
	if err := k8sClient.Create(ctx, pod); err != nil {
		o.report(ctx, "creating pod %s: %v", name, err)
		return nil
	}
	return pod
}

// runInit runs a worker's node-facts step for real, as the kubelet would
// run it before sshd, and records its log.
func (o *fakeMPIOperator) runInit(pod *corev1.Pod) []corev1.ContainerStatus {
	var states []corev1.ContainerStatus
	for _, c := range pod.Spec.InitContainers {
		if isSidecar(c) {
			// The sampler: a short series of this machine, for real.
			s := startSidecar(o.t, c, filepath.Join(o.root, pod.Name))
			time.Sleep(300 * time.Millisecond)
			out, st := s.stop()
			o.mu.Lock()
			o.logs[pod.Name+"/"+c.Name] = out
			o.mu.Unlock()
			states = append(states, st)
			continue
		}
		if c.Image != managerImage || c.Command[0] != "/benchwright" {
			o.t.Errorf("worker init container %s runs %s %v, not the manager's /benchwright", c.Name, c.Image, c.Command)
			continue
		}
		began := metav1.Now()
		args, message, err := terminationMessage(c, c.Args, filepath.Join(o.root, pod.Name))
		if err != nil {
			o.t.Error(err)
			continue
		}
		out, err := exec.Command(benchwrightCLI(o.t), args...).CombinedOutput()
		code := int32(0)
		if err != nil {
			code = 1
		}
		o.mu.Lock()
		o.logs[pod.Name+"/"+c.Name] = out
		o.mu.Unlock()
		states = append(states, corev1.ContainerStatus{Name: c.Name, Image: c.Image, State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: began, FinishedAt: metav1.Now(), Reason: reasonFor(code), Message: message()},
		}})
	}
	return states
}

// updateJobStatus writes the MPIJob's status as the MPI Operator does: on a
// conflict (benchwright annotates its MPIJobs) it reads the job again and
// writes the same status over it.
func updateJobStatus(ctx context.Context, job *mpiv2.MPIJob) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := k8sClient.Status().Update(ctx, job)
		if !apierrors.IsConflict(err) {
			return err
		}
		var latest mpiv2.MPIJob
		if gerr := k8sClient.Get(ctx, client.ObjectKeyFromObject(job), &latest); gerr != nil {
			return gerr
		}
		latest.Status = job.Status
		*job = latest
		return err
	})
}

func cond(t mpiv2.JobConditionType, reason string, at metav1.Time) mpiv2.JobCondition {
	return mpiv2.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, LastTransitionTime: at, LastUpdateTime: at}
}
