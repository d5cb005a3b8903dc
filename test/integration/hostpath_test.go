package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/test/util"
)

// A host path is the admin's directory as the volume and the rest of the
// path as the mount's subPath, so the kubelet refuses a link under it that
// leads out (ln -s / /mnt/disks/x); the admin's directory itself, whose
// entries other benchmarks mount, is refused before any Job exists.
func TestHostPathIsASubPathOfTheAdminsDirectory(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "sb-")
	startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		return (&storagebenchmark.Reconciler{
			Env: benchrun.NewEnv(mgr, "storagebenchmark-controller", nil, store), Image: "registry.example/fio:test",
			HostPathPrefixes: []string{"/mnt/disks/", "/scratch"},
		}).SetupWithManager(mgr)
	}, func(context.Context) {})
	env := &storageEnv{ns: ns}
	const spec = `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 1
volumes: {hostPath: {paths: [%s]}}
fio:
  size: 16M
  runtime: 2s
  jobs:
  - {name: read-4k, rw: randread, blockSize: 4k}
`
	bare := waitFinished(t, env.createBenchmark(t, "bare", fmt.Sprintf(spec, "/mnt/disks")), 30*time.Second)
	c := condition(t, bare, benchv1.ConditionFailed)
	if c.Reason != benchv1.ReasonInvalidSpec || !strings.Contains(c.Message, "is the admin's directory itself") {
		t.Errorf("hostPath /mnt/disks: %s %q, want InvalidSpec saying it is the admin's directory", c.Reason, c.Message)
	}
	env.createBenchmark(t, "under", fmt.Sprintf(spec, "/mnt/disks/ssd0/run"))
	var jobs batchv1.JobList
	util.WaitFor(t, 30*time.Second, "the Job of under", func() (bool, string) {
		if err := k8sClient.List(ctx, &jobs, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		return len(jobs.Items) == 1, ""
	})
	pod := jobs.Items[0].Spec.Template.Spec
	var data *corev1.Volume
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == "data0" {
			data = &pod.Volumes[i]
		}
	}
	if data == nil || data.HostPath == nil || data.HostPath.Path != "/mnt/disks" {
		t.Fatalf("volume data0 %+v, want the admin's directory /mnt/disks", data)
	}
	var mount *corev1.VolumeMount
	for i := range pod.Containers[0].VolumeMounts {
		if m := &pod.Containers[0].VolumeMounts[i]; m.Name == "data0" {
			mount = m
		}
	}
	if mount == nil || mount.SubPath != "ssd0/run" {
		t.Errorf("mount of data0 %+v, want subPath ssd0/run", mount)
	}
}
