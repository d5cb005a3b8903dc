package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/test/util"
	"github.com/benchwright/benchwright/test/wrappers"
)

// fakeKubelet stands in for the Job controller, the scheduler and the kubelet,
// which envtest does not have: for each Job in its namespace it creates the
// pod, runs the pod's containers for real on this machine (fio and dd with
// the pod's own argv, volumes mapped to temporary directories), records their
// output as container logs, and writes pod and Job status the way the real
// components do. Hooks let a test break a run the ways a cluster does.
type fakeKubelet struct {
	fakeComponent
	namespace string
	node      func(job *batchv1.Job) string // node the pod lands on
	root      string                        // stands in for the node's disks

	// hook, when set, decides the fate of a Job's pod before it runs.
	hook func(job *batchv1.Job) podFate

	mu    sync.Mutex
	logs  map[string][]byte // "<pod>/<container>" -> output
	reads map[string]int    // container -> logs read
}

// podFate is how a pod ends, when a test wants it otherwise than by running.
type podFate struct {
	// pending leaves the pod unscheduled with this message.
	pending string
	// evict fails the pod as the kubelet does under node pressure.
	evict bool
	// breakVolume puts a plain file where the volume's directory should be,
	// so the tool fails for real.
	breakVolume bool
	// mangle rewrites a container's output before it is served as its log.
	mangle func(container string, out []byte) []byte
}

func newFakeKubelet(t *testing.T, namespace string) *fakeKubelet {
	return &fakeKubelet{
		fakeComponent: fakeComponent{t: t, name: "fake kubelet"}, namespace: namespace, root: t.TempDir(),
		node: func(*batchv1.Job) string { return "node-a" },
		logs: map[string][]byte{}, reads: map[string]int{},
	}
}

// ReadLog serves the recorded output, like the API server's pods/log.
func (k *fakeKubelet) ReadLog(_ context.Context, namespace, pod, container string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.reads[container]++
	out, ok := k.logs[pod+"/"+container]
	if !ok || namespace != k.namespace {
		return nil, fmt.Errorf("pods %q not found or container %q has no log", pod, container)
	}
	return out, nil
}

// run handles Jobs until ctx ends.
func (k *fakeKubelet) run(ctx context.Context) {
	handleNew(ctx, k.namespace, func() client.ObjectList { return &batchv1.JobList{} },
		func(j *batchv1.Job) { k.handle(ctx, j) })
}

func (k *fakeKubelet) handle(ctx context.Context, job *batchv1.Job) {
	fate := podFate{}
	if k.hook != nil {
		fate = k.hook(job)
	}
	node := ""
	if fate.pending == "" {
		node = k.node(job) // a pod the scheduler placed is created bound here
	}
	pod, err := k.createPod(ctx, job, node)
	if err != nil {
		k.report(ctx, "creating the pod of Job %s: %v", job.Name, err)
		return
	}
	if fate.pending != "" {
		pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: fate.pending,
			LastTransitionTime: metav1.Now(),
		}}}
		k.report(ctx, "pending pod status: %v", k8sClient.Status().Update(ctx, pod))
		return
	}
	k.bindClaims(ctx, pod)
	start := metav1.Now()
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start}
	if err := k8sClient.Status().Update(ctx, pod); err != nil {
		k.report(ctx, "running pod status: %v", err)
		return
	}
	job.Status.StartTime, job.Status.Active = &start, 1
	if err := k8sClient.Status().Update(ctx, job); err != nil {
		k.report(ctx, "running Job status: %v", err)
		return
	}
	if fate.evict {
		k.evict(ctx, job, pod)
		return
	}
	k.finish(ctx, job, pod, k.runContainers(pod, fate))
}

// bindClaims marks the pod's claims Bound, as the volume controller does once
// the pod is scheduled (WaitForFirstConsumer).
func (k *fakeKubelet) bindClaims(ctx context.Context, pod *corev1.Pod) {
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		var pvc corev1.PersistentVolumeClaim
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: v.PersistentVolumeClaim.ClaimName}, &pvc); err != nil {
			k.report(ctx, "binding claim %s: %v", v.PersistentVolumeClaim.ClaimName, err)
			continue
		}
		pvc.Status.Phase = corev1.ClaimBound
		pvc.Status.Capacity = pvc.Spec.Resources.Requests
		pvc.Status.AccessModes = pvc.Spec.AccessModes
		k.report(ctx, "binding claim %s: %v", pvc.Name, k8sClient.Status().Update(ctx, &pvc))
	}
}

// createPod creates the Job's pod from its template, owned by the Job, as the
// Job controller does.
func (k *fakeKubelet) createPod(ctx context.Context, job *batchv1.Job, node string) (*corev1.Pod, error) {
	pod := wrappers.MakePod(job.Name+"-"+rand.String(5), job.Namespace).
		Label("batch.kubernetes.io/job-name", job.Name).Labels(job.Spec.Template.Labels).Annotations(job.Spec.Template.Annotations).
		ControlledBy(job, batchv1.SchemeGroupVersion.WithKind("Job")).Spec(job.Spec.Template.Spec).NodeName(node).Obj()
	return pod, k8sClient.Create(ctx, pod)
}

// runContainers runs the init containers, then the main one, in order, and
// returns their terminated states; a failed container stops the pod.
func (k *fakeKubelet) runContainers(pod *corev1.Pod, fate podFate) (states []corev1.ContainerStatus) {
	dataRoot := filepath.Join(k.root, pod.Name)
	for _, m := range pod.Spec.Containers[0].VolumeMounts {
		if strings.HasPrefix(m.MountPath, "/data/") {
			if err := os.MkdirAll(filepath.Join(dataRoot, m.MountPath), 0o755); err != nil {
				k.t.Error(err)
			}
		}
	}
	if fate.breakVolume {
		data := filepath.Join(dataRoot, "data")
		_ = os.RemoveAll(data)
		if err := os.WriteFile(data, nil, 0o644); err != nil {
			k.t.Error(err)
		}
	}
	// Sidecars run beside the containers after them and are stopped last;
	// their statuses keep their place among the init containers'.
	var sidecars []*sidecar
	defer func() {
		for i := len(sidecars) - 1; i >= 0; i-- {
			out, st := sidecars[i].stop()
			k.mu.Lock()
			k.logs[pod.Name+"/"+st.Name] = out
			k.mu.Unlock()
			at := slicesIndexName(pod.Spec.InitContainers, st.Name)
			states = slices.Insert(states, min(at, len(states)), st)
		}
	}()
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if isSidecar(c) {
			sidecars = append(sidecars, startSidecar(k.t, c, dataRoot))
			continue
		}
		began := metav1.Now()
		out, message, code := k.exec(pod, c, dataRoot)
		if fate.mangle != nil {
			out = fate.mangle(c.Name, out)
		}
		k.mu.Lock()
		k.logs[pod.Name+"/"+c.Name] = out
		k.mu.Unlock()
		states = append(states, corev1.ContainerStatus{Name: c.Name, Image: c.Image, State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: began, FinishedAt: metav1.Now(), Reason: reasonFor(code), Message: message},
		}})
		if code != 0 {
			break
		}
	}
	return states
}

func reasonFor(code int32) string {
	if code == 0 {
		return "Completed"
	}
	return "Error"
}

// logsRead is how many times the manager read a log of container.
func (k *fakeKubelet) logsRead(container string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.reads[container]
}

// exec runs one container's argv here, with the pod's paths mapped under
// dataRoot; its stdout and stderr together are the log, as a runtime
// records, and what it wrote at its terminationMessagePath its message.
func (k *fakeKubelet) exec(pod *corev1.Pod, c corev1.Container, dataRoot string) ([]byte, string, int32) {
	argv := append(append([]string{}, c.Command...), c.Args...)
	if c.SecurityContext != nil && ptr.Deref(c.SecurityContext.Privileged, false) {
		// The page-cache drop writes /proc/sys of the node: not on a test machine.
		return nil, "", 0
	}
	for i, a := range argv {
		argv[i] = strings.ReplaceAll(a, "/data/", dataRoot+"/data/")
		if a == "/tmp" || strings.HasPrefix(a, "/tmp/") { // the pod's own /tmp (an emptyDir)
			argv[i] = dataRoot + a
			if err := os.MkdirAll(dataRoot+"/tmp", 0o755); err != nil {
				return []byte(err.Error()), "", 127
			}
		}
		if strings.HasPrefix(a, "/etc/benchwright/") {
			argv[i] = k.configFile(pod, a, dataRoot)
		}
	}
	argv, message, err := terminationMessage(c, argv, dataRoot)
	if err != nil {
		return []byte(err.Error()), "", 127
	}
	if c.Image == managerImage && argv[0] == "/benchwright" {
		// The node-facts step, for real; after the mapping, which is the pod's
		// paths' and not the CLI's (built under the host's /tmp).
		argv[0] = benchwrightCLI(k.t)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.Bytes(), message(), int32(exit.ExitCode())
	case err != nil:
		return []byte(err.Error()), "", 127
	}
	return out.Bytes(), message(), 0
}

// terminationMessage gives a container's terminationMessagePath, where its
// argv names it, a file of its own under dir, made empty and writable by
// anyone as the kubelet makes it; message is what the container wrote there,
// of which the kubelet keeps the last 4 KiB.
func terminationMessage(c corev1.Container, argv []string, dir string) (mapped []string, message func() string, err error) {
	none := func() string { return "" }
	if c.TerminationMessagePath == "" || !slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, c.TerminationMessagePath) }) {
		return argv, none, nil
	}
	file := filepath.Join(dir, c.Name+"-termination-log")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, none, err
	}
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		return nil, none, err
	}
	mapped = make([]string, len(argv))
	for i, a := range argv {
		mapped[i] = strings.ReplaceAll(a, c.TerminationMessagePath, file)
	}
	return mapped, func() string {
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Sprintf("Error on reading termination log %s: %v", file, err)
		}
		return string(data[len(data)-min(len(data), 4096):])
	}, nil
}

// configFile writes the file a container reads from the pod's downward API
// volume (its own annotation), with /data/ paths mapped like the argv.
func (k *fakeKubelet) configFile(pod *corev1.Pod, path, dataRoot string) string {
	data, ok := util.DownwardFile(pod, filepath.Base(path))
	if !ok {
		return path
	}
	file := filepath.Join(dataRoot, filepath.Base(path))
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(data, "/data/", dataRoot+"/data/")), 0o644); err != nil {
		k.t.Error(err)
	}
	return file
}

// finish writes the pod's end and the Job's conditions, as the kubelet and the
// Job controller do.
func (k *fakeKubelet) finish(ctx context.Context, job *batchv1.Job, pod *corev1.Pod, states []corev1.ContainerStatus) {
	n := len(pod.Spec.InitContainers)
	if len(states) > n {
		pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses = states[:n], states[n:]
	} else {
		pod.Status.InitContainerStatuses = states
	}
	failed := states[len(states)-1].State.Terminated.ExitCode != 0
	pod.Status.Phase = corev1.PodSucceeded
	if failed {
		pod.Status.Phase = corev1.PodFailed
	}
	if err := k8sClient.Status().Update(ctx, pod); err != nil {
		k.report(ctx, "finished pod status: %v", err)
		return
	}
	now := metav1.Now()
	job.Status.Active = 0
	if failed {
		job.Status.Failed = 1
		job.Status.Conditions = failedJobConditions(now, "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	} else {
		job.Status.Succeeded = 1
		job.Status.CompletionTime = &now
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now, LastProbeTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now, LastProbeTime: now},
		}
	}
	k.report(ctx, "finished Job status: %v", k8sClient.Status().Update(ctx, job))
}

// evict fails the pod the way node-pressure eviction does.
func (k *fakeKubelet) evict(ctx context.Context, job *batchv1.Job, pod *corev1.Pod) {
	now := metav1.Now()
	pod.Status.Phase = corev1.PodFailed
	pod.Status.Reason = "Evicted"
	pod.Status.Message = "The node was low on resource: ephemeral-storage."
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: "TerminationByKubelet", Message: "The node was low on resource: ephemeral-storage.", LastTransitionTime: now}}
	if err := k8sClient.Status().Update(ctx, pod); err != nil {
		k.report(ctx, "evicted pod status: %v", err)
		return
	}
	job.Status.Active, job.Status.Failed = 0, 1
	job.Status.Conditions = failedJobConditions(now, "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	k.report(ctx, "evicted Job status: %v", k8sClient.Status().Update(ctx, job))
}

func failedJobConditions(now metav1.Time, reason, message string) []batchv1.JobCondition {
	return []batchv1.JobCondition{
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: reason, Message: message, LastTransitionTime: now, LastProbeTime: now},
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: message, LastTransitionTime: now, LastProbeTime: now},
	}
}

// fakeComponent is what the stand-ins for the cluster's components share: the
// test they fail, and their name in its messages.
type fakeComponent struct {
	t    *testing.T
	name string
}

// report fails the test on an error, the last of args (nil: no error), unless
// the test is over.
func (f fakeComponent) report(ctx context.Context, format string, args ...any) {
	if err, _ := args[len(args)-1].(error); err == nil || ctx.Err() != nil {
		return
	}
	f.t.Errorf(f.name+": "+format, args...)
}

// handleNew lists the objects of newList's kind in namespace every 50 ms until
// ctx ends, and starts handle, in a goroutine of its own, on each one not seen
// before (by UID: an object made again under its name is another) and not
// being deleted: how a stand-in notices the objects it acts on.
func handleNew[T client.Object](ctx context.Context, namespace string, newList func() client.ObjectList, handle func(T)) {
	seen := map[string]bool{}
	for ctx.Err() == nil {
		list := newList()
		if err := k8sClient.List(ctx, list, client.InNamespace(namespace)); err == nil {
			items, _ := meta.ExtractList(list)
			for _, item := range items {
				if obj := item.(T); !seen[string(obj.GetUID())] && obj.GetDeletionTimestamp().IsZero() {
					seen[string(obj.GetUID())] = true
					go handle(obj)
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// slicesIndexName is the index of the container named name.
func slicesIndexName(cs []corev1.Container, name string) int {
	return slices.IndexFunc(cs, func(c corev1.Container) bool { return c.Name == name })
}
