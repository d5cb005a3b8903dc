//go:build real

package real

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/test/util"
)

// blockVolumes makes raw block PersistentVolumes of class on the nodes
// where: a loop
// device per size, over a sparse file under REAL_VOLUMES, opened with direct
// I/O (so fio's O_DIRECT reaches the disk, not this machine's page cache),
// each a local PV in Block mode. Deleted with the test; it returns the PVs'
// names.
func blockVolumes(t *testing.T, class string, where corev1.NodeSelectorRequirement, sizes ...string) []string {
	t.Helper()
	ensureStorageClass(t, class)
	dir := filepath.Join(env["REAL_VOLUMES"], "block-"+class)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, size := range sizes {
		name := fmt.Sprintf("%s-%s-%d", class, strings.Join(where.Values, "-"), i)
		file := filepath.Join(dir, name+".img")
		q := resource.MustParse(size)
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(file, q.Value()); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("losetup", "--find", "--show", "--direct-io=on", file).CombinedOutput()
		if err != nil {
			t.Fatalf("losetup %s: %v: %s", file, err, out)
		}
		dev := strings.TrimSpace(string(out))
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"benchwright.io/real-block": class}},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: q},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				StorageClassName:              class,
				VolumeMode:                    ptr.To(corev1.PersistentVolumeBlock),
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: dev}},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{where},
				}}}},
			},
		}
		if err := k8s.Create(ctx(), pv); err != nil {
			_ = exec.Command("losetup", "-d", dev).Run()
			t.Fatal(err)
		}
		t.Logf("block volume %s: %s (%s, direct I/O) on nodes %s %s %v", name, dev, size, where.Key, where.Operator, where.Values)
		names = append(names, name)
		t.Cleanup(func() {
			_ = k8s.Delete(ctx(), pv)
			util.WaitFor(t, 2*time.Minute, "block volume "+name+" gone", func() (bool, string) {
				err := k8s.Get(ctx(), client.ObjectKey{Name: name}, &corev1.PersistentVolume{})
				return client.IgnoreNotFound(err) == nil && err != nil, fmt.Sprint(err)
			})
			// Detached at once, or when the kubelet's own loop over it goes.
			_ = exec.Command("losetup", "-d", dev).Run()
			_ = os.Remove(file)
		})
	}
	return names
}

// boundOnce says which of the PVs were bound to a claim (now Bound, or
// Released by a claim that is gone).
func boundOnce(t *testing.T, names []string) (bound []string) {
	t.Helper()
	for _, n := range names {
		var pv corev1.PersistentVolume
		if err := k8s.Get(ctx(), client.ObjectKey{Name: n}, &pv); err != nil {
			t.Fatal(err)
		}
		if pv.Spec.ClaimRef != nil && (pv.Status.Phase == corev1.VolumeBound || pv.Status.Phase == corev1.VolumeReleased) {
			bound = append(bound, n)
		}
	}
	return bound
}
