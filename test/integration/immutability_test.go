package integration

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/wrappers"
)

func TestBenchmarkSpecIsImmutableOnceStarted(t *testing.T) {
	ctx := testContext(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "immutable-"}}
	if err := k8sClient.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	bench := wrappers.MakeStorageBenchmark("fio", ns.Name).NodeSelector(map[string]string{"kubernetes.io/os": "linux"}).
		Claims(0, "10Gi", "").FioPreset(benchv1.FioPresetGCEPD).Obj()
	if err := k8sClient.Create(ctx, bench); err != nil {
		t.Fatal(err)
	}
	if bench.Spec.Repetitions != 1 || bench.Spec.Nodes != 1 || bench.Spec.MaxRetries != 2 || bench.Spec.Volumes.Count != 1 {
		t.Errorf("defaults not applied: repetitions=%d nodes=%d maxRetries=%d count=%d",
			bench.Spec.Repetitions, bench.Spec.Nodes, bench.Spec.MaxRetries, bench.Spec.Volumes.Count)
	}

	// Before the first repetition the spec may still be fixed.
	bench.Spec.Repetitions = 5
	if err := k8sClient.Update(ctx, bench); err != nil {
		t.Fatalf("update before start: %v", err)
	}

	// The controller records the start; from then on the spec is frozen.
	now := metav1.Now()
	bench.Status.StartTime = &now
	if err := k8sClient.Status().Update(ctx, bench); err != nil {
		t.Fatalf("status update: %v", err)
	}
	bench.Spec.Repetitions = 7
	err := k8sClient.Update(ctx, bench)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec is immutable once the benchmark has started") {
		t.Fatalf("update after start: got %v, want the immutability message", err)
	}

	// Metadata (labels for campaigns) may still change.
	if err := k8sClient.Get(ctx, clientKey(bench), bench); err != nil {
		t.Fatal(err)
	}
	bench.Labels = map[string]string{benchv1.CampaignLabel: "s0"}
	if err := k8sClient.Update(ctx, bench); err != nil {
		t.Fatalf("label update after start: %v", err)
	}
}

func TestPoolProviderSettingsAreImmutable(t *testing.T) {
	ctx := testContext(t)
	pool := &benchv1.BenchmarkPool{
		ObjectMeta: metav1.ObjectMeta{Name: "immutable-pool"},
		Spec: benchv1.BenchmarkPoolSpec{
			Provider: benchv1.ProviderGKE,
			GKE:      &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 2, ThreadsPerCore: ptr.To[int32](1)},
		},
	}
	if err := k8sClient.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, pool) })

	pool.Spec.GKE.ThreadsPerCore = ptr.To[int32](2)
	err := k8sClient.Update(ctx, pool)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "gke settings cannot change once the node pool exists") {
		t.Fatalf("changing gke settings: got %v", err)
	}

	if err := k8sClient.Get(ctx, clientKey(pool), pool); err != nil {
		t.Fatal(err)
	}
	pool.Spec.TTLSecondsAfterIdle = ptr.To[int32](600)
	if err := k8sClient.Update(ctx, pool); err != nil {
		t.Fatalf("changing the TTL: %v", err)
	}
}
