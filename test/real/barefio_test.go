//go:build real

package real

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/test/util"
	"github.com/benchwright/benchwright/test/wrappers"
)

// bareRun is what a bare fio pod measured.
type bareRun struct {
	// iops is each job's read IOPS.
	iops map[string]float64
	// ran is from the container's start to its end; wall from creating the
	// pod to seeing it Succeeded.
	ran, wall time.Duration
}

// runBareFio runs fio by hand, as a person would without benchwright: a pod
// of the fio image on node with the job file in a ConfigMap, an emptyDir at
// /data/0 (where the job file points), as the same non-root user; then reads
// fio's JSON from the pod's log.
func runBareFio(tb testing.TB, ns, node, jobFile string) bareRun {
	tb.Helper()
	name := "bare-fio-" + rand.String(5)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"job.fio": jobFile}}
	if err := k8s.Create(ctx(), cm); err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = k8s.Delete(ctx(), cm) }()
	pod := wrappers.MakePod(name, ns).NodeName(node).Spec(corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		SecurityContext: &corev1.PodSecurityContext{
			RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532), FSGroup: ptr.To[int64](65532),
		},
		Containers: []corev1.Container{{
			Name: "fio", Image: env["IMAGE_FIO"], ImagePullPolicy: corev1.PullIfNotPresent,
			Command: []string{"fio", "--output-format=json", "--eta=never", "/etc/benchwright/job.fio"},
			// The benchmark's pod is Burstable through its sampler's requests,
			// so its cgroup outweighs a BestEffort pod's when the node's two
			// cores are contended: the same requests (not the sampler's CPU
			// limit) put both pods in one QoS class with one CPU weight.
			Resources: corev1.ResourceRequirements{Requests: children.SamplerResources.Requests.DeepCopy()},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "data", MountPath: "/data/0"}, {Name: "job", MountPath: "/etc/benchwright"}, {Name: "tmp", MountPath: "/tmp"},
			},
		}},
		Volumes: []corev1.Volume{
			{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "job", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: name},
			}}},
		},
	}).Obj()
	began := time.Now()
	if err := k8s.Create(ctx(), pod); err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = k8s.Delete(ctx(), pod, client.GracePeriodSeconds(0)) }()
	util.WaitFor(tb, 5*time.Minute, "bare fio pod "+name+" Succeeded", func() (bool, string) {
		if err := k8s.Get(ctx(), client.ObjectKeyFromObject(pod), pod); err != nil {
			return false, err.Error()
		}
		if pod.Status.Phase == corev1.PodFailed {
			tb.Fatalf("bare fio pod %s failed: %s", name, logOf(ns, name))
		}
		return pod.Status.Phase == corev1.PodSucceeded, fmt.Sprintf("phase %s", pod.Status.Phase)
	})
	run := bareRun{wall: time.Since(began), iops: map[string]float64{}}
	if st := pod.Status.ContainerStatuses; len(st) == 1 && st[0].State.Terminated != nil {
		run.ran = st[0].State.Terminated.FinishedAt.Sub(st[0].State.Terminated.StartedAt.Time)
	}
	out := logOf(ns, name)
	samples, err := fio.ParseJSON([]byte(out))
	if err != nil {
		tb.Fatalf("bare fio pod's output: %v\n%.500s", err, out)
	}
	for _, s := range samples {
		if s.Metric == "read_iops" {
			run.iops[s.Test] = s.Value
		}
	}
	return run
}

// logOf is a pod's log through the API server, or the error reading it.
func logOf(ns, pod string) string {
	data, err := clientset.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{}).DoRaw(context.Background())
	if err != nil {
		return err.Error()
	}
	return string(data)
}
