//go:build real

package real

import (
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// Seed 004's IOR runs, a file per process and one shared file, on a
// ReadWriteMany volume both nodes mount: the claim scratch-rwx the examples
// name, bound to a directory of this machine, which both nodes share as
// nodes share a filesystem server. Scaled to this machine: one rank on each
// of the two nodes (each reads what the other wrote, IOR's -C) instead of 32
// ranks on one, 64 MiB per rank instead of 1 GiB, 2 repetitions.
func TestSeed4IOROnSharedVolume(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	ns := newNamespace(t)
	rwxClaim(t, ns, "scratch-rwx")
	for _, file := range []string{"seeds/s4-ior-fpp.yaml", "seeds/s4-ior-shared.yaml"} {
		b := &benchv1.MPIBenchmark{}
		util.LoadExample(t, file, b)
		if b.Spec.IOR == nil || b.Spec.IOR.ClaimName != "scratch-rwx" {
			t.Fatalf("%s no longer runs IOR on the claim scratch-rwx", file)
		}
		b.Namespace = ns
		b.Spec.Layout.Nodes, b.Spec.Layout.RanksPerNode = 2, 1
		b.Spec.Layout.CPUBinding = &benchv1.CPUBinding{Policy: benchv1.BindNone}
		b.Spec.IOR.BlockSize = "64m"
		b.Spec.Repetitions = 2
		t.Run(b.Name, func(t *testing.T) {
			checkSpread(t, runMPIBenchmark(t, b), 2)
		})
	}
}

// rwxClaim makes the claim name in ns, ReadWriteMany, bound to a hostPath
// volume under REAL_VOLUMES that every rank (uid 1000) may write; both are
// deleted when the test ends.
func rwxClaim(t *testing.T, ns, name string) {
	t.Helper()
	dir := filepath.Join(env["REAL_VOLUMES"], ns+"-"+name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	size := resource.MustParse("10Gi")
	rwx := []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: size}, AccessModes: rwx,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: dir, Type: ptr.To(corev1.HostPathDirectory)}},
			ClaimRef: &corev1.ObjectReference{Namespace: ns, Name: name},
		},
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{util.TestOwnedLabel: "true"}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: rwx, StorageClassName: ptr.To(""), VolumeName: pv.Name,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}
	if err := k8s.Create(ctx(), pv); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx(), pvc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k8s.Delete(ctx(), pvc)
		_ = k8s.Delete(ctx(), pv)
		_ = os.RemoveAll(dir)
	})
}
