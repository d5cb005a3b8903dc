package chart_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/test/util"
)

// gkeCAFile is where the manager reads the GKE endpoint's CAs.
const gkeCAFile = "/etc/benchwright/gke-ca/ca.crt"

// The real cluster's values point the manager at its fake GKE endpoint: the
// flags, and the cluster's CA mounted read-only where --gke-ca-file says.
func TestGKEEndpoint(t *testing.T) {
	values, err := os.ReadFile(filepath.Join(util.RepoRoot(), "hack", "real-cluster-gke-values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	find(t, render(t, string(values)), "Deployment", "benchwright-manager").into(t, &d)
	for _, a := range []string{"--gke-project=benchwright-real", "--gke-location=us-central1-a", "--gke-cluster=real",
		"--gke-endpoint=10.99.0.1:8443", "--gke-ca-file=" + gkeCAFile, "--gke-without-authentication"} {
		wantArg(t, &d, a)
	}
	pod := d.Spec.Template.Spec
	mounts := pod.Containers[0].VolumeMounts
	i := slices.IndexFunc(mounts, func(m corev1.VolumeMount) bool { return m.MountPath == filepath.Dir(gkeCAFile) })
	if i < 0 || !mounts[i].ReadOnly {
		t.Fatalf("mounts %+v, want one read-only at %s", mounts, filepath.Dir(gkeCAFile))
	}
	j := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == mounts[i].Name })
	if j < 0 || pod.Volumes[j].ConfigMap == nil {
		t.Fatalf("volume %s is no ConfigMap: %+v", mounts[i].Name, pod.Volumes)
	}
	cm := pod.Volumes[j].ConfigMap
	want := []corev1.KeyToPath{{Key: "ca.crt", Path: filepath.Base(gkeCAFile)}}
	if cm.Name != "kube-root-ca.crt" || !slices.Equal(cm.Items, want) {
		t.Errorf("CA volume %+v, want kube-root-ca.crt's ca.crt as %s", cm, filepath.Base(gkeCAFile))
	}
}

// Without endpoint values (Google's API, Workload Identity) the manager gets
// none of their flags and no CA volume.
func TestGKEEndpointUnset(t *testing.T) {
	for _, values := range []string{"", gkeValues} {
		var d appsv1.Deployment
		find(t, render(t, values), "Deployment", "benchwright-manager").into(t, &d)
		for _, a := range d.Spec.Template.Spec.Containers[0].Args {
			if strings.HasPrefix(a, "--gke-endpoint") || strings.HasPrefix(a, "--gke-ca-file") || strings.HasPrefix(a, "--gke-without-authentication") {
				t.Errorf("values %q pass %s", values, a)
			}
		}
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.ConfigMap != nil {
				t.Errorf("values %q mount ConfigMap %s", values, v.ConfigMap.Name)
			}
		}
	}
}
