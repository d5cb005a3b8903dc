package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// wantFailed checks the Failed condition's reason and the parts its message
// must quote, and that no figure was reported.
func wantFailed(t *testing.T, b *benchv1.StorageBenchmark, reason string, quotes ...string) {
	t.Helper()
	c := condition(t, b, benchv1.ConditionFailed)
	if c.Status != metav1.ConditionTrue || c.Reason != reason {
		t.Fatalf("Failed = %s/%s, want True/%s: %s", c.Status, c.Reason, reason, c.Message)
	}
	for _, q := range quotes {
		if !strings.Contains(c.Message, q) {
			t.Errorf("Failed message lacks %q:\n%s", q, c.Message)
		}
	}
	if b.Status.State != benchv1.StateFailed || b.Status.CompletionTime == nil {
		t.Errorf("state %q completionTime %v", b.Status.State, b.Status.CompletionTime)
	}
	t.Logf("Failed/%s: %s", c.Reason, c.Message)
}

func TestStorageBenchmarkFioExitsNonZero(t *testing.T) {
	requireTool(t, "fio")
	env := newStorageEnv(t, func(_ context.Context, k *fakeKubelet) {
		// The volume is not a directory when fio starts: fio fails for real.
		k.hook = func(*batchv1.Job) podFate { return podFate{breakVolume: true} }
	})
	b := waitFinished(t, env.createBenchmark(t, "broken", smallFio), 60*time.Second)
	wantFailed(t, b, benchv1.ReasonToolFailed, "fio exited with code", "on node node-a", "it said:\nfio: failed to create dir", "Not a directory")
	if len(b.Status.Results) != 0 || b.Status.CompletedRepetitions != 0 {
		t.Errorf("a failed run reported results: %+v", b.Status.Results)
	}
	if raw := rawLogs(t, env.store, b); len(raw) != 1 || !strings.Contains(string(raw[0]), "Not a directory") {
		t.Errorf("the failed pod's log is not stored: %q", raw)
	}
}

func TestStorageBenchmarkTruncatedOutput(t *testing.T) {
	requireTool(t, "fio")
	env := newStorageEnv(t, func(_ context.Context, k *fakeKubelet) {
		// The second repetition's report is cut in the middle, as when a log
		// is rotated away or fio is killed while printing.
		k.hook = func(j *batchv1.Job) podFate {
			if j.Labels[benchv1.RepetitionLabel] != "1" {
				return podFate{}
			}
			return podFate{mangle: func(_ string, out []byte) []byte { return out[:len(out)/2] }}
		}
	})
	b := waitFinished(t, env.createBenchmark(t, "cut", smallFio), 60*time.Second)
	wantFailed(t, b, benchv1.ReasonUnparsableOutput, "repetition 2/2", "not a complete fio JSON report", "last lines of the output")
	// The first repetition's figures stand, counted once; nothing of the second.
	if b.Status.CompletedRepetitions != 1 || len(b.Status.Results) == 0 || b.Status.Results[0].Read.IOPS.N != 1 {
		t.Errorf("completed %d, results %+v", b.Status.CompletedRepetitions, b.Status.Results)
	}
}

func TestStorageBenchmarkVolumeNeverBinds(t *testing.T) {
	env := newStorageEnv(t, func(_ context.Context, k *fakeKubelet) {
		k.hook = func(*batchv1.Job) podFate {
			return podFate{pending: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."}
		}
	})
	b := env.createBenchmark(t, "nobind", `
nodeSelector: {kubernetes.io/os: linux}
volumes: {count: 2, size: 100Gi, storageClassName: no-such-class}
timeouts: {start: 3s}
fio: {jobs: [{name: r, rw: randread}]}
`)
	// While it waits, it says why.
	util.WaitFor(t, 10*time.Second, "a VolumesPending condition", func() (bool, string) {
		var got benchv1.StorageBenchmark
		if err := k8sClient.Get(context.Background(), clientKey(b), &got); err != nil {
			t.Fatal(err)
		}
		c := condition2(&got, benchv1.ConditionRunning)
		if c == nil || c.Reason != benchv1.ReasonVolumesPending {
			return false, fmt.Sprintf("conditions %+v", got.Status.Conditions)
		}
		if got.Status.State != benchv1.StatePending || !strings.Contains(c.Message, "nobind-data0 (Pending, storage class no-such-class)") {
			t.Errorf("while waiting: state %q, Running message %q", got.Status.State, c.Message)
		}
		return true, ""
	})
	b = waitFinished(t, b, 30*time.Second)
	wantFailed(t, b, benchv1.ReasonTimeout, "did not start within 3s (spec.timeouts.start)",
		"nobind-data0 (Pending, storage class no-such-class)", "nobind-data1", "unbound immediate PersistentVolumeClaims")
	// The Job that could not start is gone, so it never starts late.
	var jobs batchv1.JobList
	if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(env.ns)); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs.Items {
		if j.DeletionTimestamp.IsZero() {
			t.Errorf("Job %s left behind after the timeout", j.Name)
		}
	}
	var pvcs corev1.PersistentVolumeClaimList
	if err := k8sClient.List(context.Background(), &pvcs, client.InNamespace(env.ns)); err != nil {
		t.Fatal(err)
	}
	if len(pvcs.Items) != 2 || pvcs.Items[0].Spec.StorageClassName == nil || *pvcs.Items[0].Spec.StorageClassName != "no-such-class" ||
		pvcs.Items[0].Spec.Resources.Requests.Storage().String() != "100Gi" {
		t.Errorf("claims: %+v", pvcs.Items)
	}
}

func condition2(b *benchv1.StorageBenchmark, typ string) *metav1.Condition {
	for i := range b.Status.Conditions {
		if b.Status.Conditions[i].Type == typ {
			return &b.Status.Conditions[i]
		}
	}
	return nil
}

func TestStorageBenchmarkEvictionIsRetried(t *testing.T) {
	requireTool(t, "fio")
	env := newStorageEnv(t, func(_ context.Context, k *fakeKubelet) {
		k.hook = func(j *batchv1.Job) podFate {
			return podFate{evict: j.Labels["benchwright.io/attempt"] == "0" && j.Labels[benchv1.RepetitionLabel] == "0"}
		}
	})
	spec := strings.Replace(smallFio, "repetitions: 2", "repetitions: 1\nmaxRetries: 1", 1)
	b := waitFinished(t, env.createBenchmark(t, "evicted", spec), 60*time.Second)
	if c := condition(t, b, benchv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Fatalf("not Succeeded after one eviction: %+v", b.Status.Conditions)
	}
	if b.Status.Retries != 1 || b.Status.Results[0].Read.IOPS.N != 1 {
		t.Errorf("retries %d, results %+v", b.Status.Retries, b.Status.Results)
	}
	waitEvents(t, env.ns, b.Name, "Warning/Evicted")
}

func TestStorageBenchmarkEvictedTooOften(t *testing.T) {
	env := newStorageEnv(t, func(_ context.Context, k *fakeKubelet) {
		k.hook = func(*batchv1.Job) podFate { return podFate{evict: true} }
	})
	spec := strings.Replace(smallFio, "repetitions: 2", "maxRetries: 1", 1)
	b := waitFinished(t, env.createBenchmark(t, "evicted", spec), 30*time.Second)
	wantFailed(t, b, benchv1.ReasonRetriesExhausted, "lost 2 time(s), spec.maxRetries is 1", "Evicted: The node was low on resource: ephemeral-storage.")
	if b.Status.Retries != 1 || len(b.Status.Results) != 0 {
		t.Errorf("retries %d results %+v", b.Status.Retries, b.Status.Results)
	}
}

func TestStorageBenchmarkNameConflict(t *testing.T) {
	env := newStorageEnv(t, nil)
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "taken-data0", Namespace: env.ns},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if err := k8sClient.Create(context.Background(), pvc); err != nil {
		t.Fatal(err)
	}
	spec := strings.Replace(smallFio, "volumes: {emptyDir: {}}", "volumes: {size: 1Gi}", 1)
	b := waitFinished(t, env.createBenchmark(t, "taken", spec), 30*time.Second)
	wantFailed(t, b, benchv1.ReasonNameConflict, "PersistentVolumeClaim taken-data0 already exists and does not belong to this benchmark")
}
