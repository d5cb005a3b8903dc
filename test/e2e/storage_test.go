//go:build e2e

package e2e

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/test/util"
)

// The quickstart fio benchmark as a person applies it: three repetitions of
// two fio jobs on an emptyDir, each repetition a Job whose pod "prints" a
// real fio JSON report.
func TestStorageQuickstartFio(t *testing.T) {
	ns := newNamespace(t)
	b := &benchv1.StorageBenchmark{}
	util.LoadExample(t, "quickstart/fio.yaml", b)
	b.Namespace = ns
	if err := k8s.Create(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	waitSucceeded(t, storageBench{b}, 3*time.Minute)
	checkLogServer(t)

	_, want, err := fioOutput(b.Spec.Fio)
	if err != nil {
		t.Fatal(err)
	}
	checkFioFigures(t, b, want)
	if b.Status.CompletedRepetitions != b.Spec.Repetitions {
		t.Errorf("completedRepetitions = %d, want %d", b.Status.CompletedRepetitions, b.Spec.Repetitions)
	}
	checkArtifacts(t, b.Status.ArtifactURI, int(b.Spec.Repetitions))

	// What the pod printed, through the API server as kubectl reads it, is
	// what the manager stored as the raw output of the repetition.
	printed, _, _ := fioOutput(b.Spec.Fio)
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if got := kubectl(t, "logs", "-n", ns, p.Name, "-c", fioContainer); got != string(printed) {
			t.Errorf("kubectl logs %s: %d bytes, want the %d bytes of the fio report served", p.Name, len(got), len(printed))
		}
		rep := p.Labels[benchv1.RepetitionLabel]
		if stored, err := os.ReadFile(filepath.Join(artifactDir(t, b.Status.ArtifactURI), "raw", rep, p.Name+".log")); err != nil || string(stored) != string(printed) {
			t.Errorf("raw artifact of pod %s (repetition %s): %d bytes (%v), want the %d bytes fio printed", p.Name, rep, len(stored), err, len(printed))
		}
	}

	rows := util.Table(t, kubectl(t, "get", "storagebenchmarks", "-n", ns))
	t.Logf("kubectl get storagebenchmarks:\n%s", kubectl(t, "get", "storagebenchmarks", "-n", ns))
	row := rows[0]
	for col, want := range map[string]string{"NAME": b.Name, "STATE": "Succeeded", "PROGRESS": "3/3", "VOLUMES": "emptyDir"} {
		if row[col] != want {
			t.Errorf("kubectl get: column %s = %q, want %q (row %v)", col, row[col], want, row)
		}
	}
	// The headline is the first job's read IOPS, rounded: 125958 -> "126k IOPS" or so.
	if h := row["RESULT"]; !strings.Contains(h, "IOPS") || !strings.HasPrefix(h, "12") {
		t.Errorf("kubectl get: RESULT = %q, want about 126k IOPS (%.0f)", h, want["randread-4k-qd16"].ReadIOPS)
	}
	util.DeleteAndWaitGone(t, k8s, b, time.Minute)
}

// checkFioFigures compares each job's status figures with its fio report's.
func checkFioFigures(t *testing.T, b *benchv1.StorageBenchmark, want map[string]fioFigures) {
	t.Helper()
	got := map[string]benchv1.StorageTestResult{}
	for _, r := range b.Status.Results {
		got[r.Test] = r
	}
	for job, w := range want {
		r, ok := got[job]
		if !ok {
			t.Errorf("status has no results for fio job %s: %+v", job, b.Status.Results)
			continue
		}
		check := func(dir string, d *benchv1.DirectionResult, iops, kibps float64) {
			if iops == 0 {
				return
			}
			if d == nil || d.IOPS == nil || d.BandwidthMiBps == nil {
				t.Errorf("%s: no %s figures in the status: %+v", job, dir, d)
				return
			}
			if !near(d.IOPS.Median, iops, 1e-9) || d.IOPS.Min != d.IOPS.Max {
				t.Errorf("%s: %s IOPS median %v (min %v max %v), want %v as fio printed", job, dir, d.IOPS.Median, d.IOPS.Min, d.IOPS.Max, iops)
			}
			if !near(d.BandwidthMiBps.Median, kibps/1024, 1e-3) {
				t.Errorf("%s: %s bandwidth %v MiB/s, want %v (fio's bw %v KiB/s)", job, dir, d.BandwidthMiBps.Median, kibps/1024, kibps)
			}
			if int(d.IOPS.N) != int(b.Spec.Repetitions-b.Spec.WarmupRepetitions) {
				t.Errorf("%s: %s IOPS over %d repetitions, want %d", job, dir, d.IOPS.N, b.Spec.Repetitions)
			}
		}
		check("read", r.Read, w.ReadIOPS, w.ReadKiBps)
		check("write", r.Write, w.WriteIOPS, w.WriteKiBps)
	}
}

// artifactDir is the directory of a file:// artifact URI.
func artifactDir(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || !strings.HasPrefix(uri, env["ARTIFACT_STORE"]) {
		t.Fatalf("artifactURI %q is not in the dev cluster's store %s", uri, env["ARTIFACT_STORE"])
	}
	return u.Path
}

// checkArtifacts looks in the manager's file store for the run's files.
func checkArtifacts(t *testing.T, uri string, reps int) {
	t.Helper()
	dir := artifactDir(t, uri)
	for _, f := range []string{"samples.ndjson", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("artifact %s: %v", f, err)
		}
	}
	raw, _ := filepath.Glob(filepath.Join(dir, "raw", "*", "*.log"))
	if len(raw) < reps {
		t.Errorf("artifacts: %d raw logs under %s/raw, want one per repetition (%d)", len(raw), dir, reps)
	}
}

// Seed 004's dd study on a persistent disk: five I/O modes by 1, 2, 4 and 8
// processes per repetition, each test its own container, after a privileged
// page-cache drop. The claim is
// bound to a volume made here (the dev cluster has no provisioner).
func TestStorageDDOnPersistentVolume(t *testing.T) {
	ns := newNamespace(t)
	b := &benchv1.StorageBenchmark{}
	util.LoadExample(t, "seeds/s4-dd-io-modes.yaml", b)
	b.Namespace = ns
	ctx := context.Background()

	claim := children.Name(b.Name, "-data0")
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-data0"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: *b.Spec.Volumes.Size},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName:              *b.Spec.Volumes.StorageClassName,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/disks/" + ns}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: ns, Name: claim},
		},
	}
	if err := k8s.Create(ctx, pv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), pv) })
	if err := k8s.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	waitSucceeded(t, storageBench{b}, 3*time.Minute)
	checkLogServer(t)

	for _, test := range b.Spec.DD.Tests {
		want, err := ddMiBps(ddFixture(test.Operation))
		if err != nil {
			t.Fatal(err)
		}
		// Every process printed the fixture: n times the bytes in the same time.
		want *= float64(test.ProcessesOrDefault())
		var d *benchv1.DirectionResult
		for _, r := range b.Status.Results {
			if r.Test == test.Name {
				d = r.Write
				if test.Operation == "read" {
					d = r.Read
				}
			}
		}
		if d == nil || d.BandwidthMiBps == nil {
			t.Errorf("dd test %s: no %s bandwidth in the status %+v", test.Name, test.Operation, b.Status.Results)
			continue
		}
		if !near(d.BandwidthMiBps.Median, want, 1e-6) {
			t.Errorf("dd test %s: %v MiB/s, want %v (bytes / seconds of dd's summary)", test.Name, d.BandwidthMiBps.Median, want)
		}
	}
	out := kubectl(t, "get", "storagebenchmarks", "-n", ns)
	t.Logf("kubectl get storagebenchmarks:\n%s", out)
	row := util.Table(t, out)[0]
	if row["STATE"] != "Succeeded" || row["VOLUMES"] != "1x100Gi premium-rwo" || !strings.Contains(row["RESULT"], "/s") {
		t.Errorf("kubectl get: row %v, want state Succeeded, volumes 1x100Gi premium-rwo, a bandwidth result", row)
	}
	var got corev1.PersistentVolumeClaim
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: claim}, &got); err != nil {
		t.Fatalf("the benchmark's claim %s: %v", claim, err)
	}
	if got.Spec.VolumeName != pv.Name {
		t.Errorf("claim %s is bound to %q, want %s", claim, got.Spec.VolumeName, pv.Name)
	}
	util.DeleteAndWaitGone(t, k8s, b, time.Minute)
}
