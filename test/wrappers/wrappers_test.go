package wrappers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// The builders make what the literals made, the shared spec included.
func TestBenchmarks(t *testing.T) {
	gotMPI := MakeMPIBenchmark("lat", "hpc").Pool("c2d").Repetitions(3).Layout(2, 1).Tests("osu_latency").StartTimeout(time.Minute).Obj()
	wantMPI := &benchv1.MPIBenchmark{
		ObjectMeta: metav1.ObjectMeta{Name: "lat", Namespace: "hpc"},
		Spec: benchv1.MPIBenchmarkSpec{
			BenchmarkSpecCommon: benchv1.BenchmarkSpecCommon{
				Placement: benchv1.Placement{Pool: "c2d"}, RepetitionPolicy: benchv1.RepetitionPolicy{Repetitions: 3},
				Timeouts: benchv1.Timeouts{Start: &metav1.Duration{Duration: time.Minute}},
			},
			Suite:  benchv1.SuiteOSU,
			Tests:  []string{"osu_latency"},
			Layout: benchv1.MPILayout{Nodes: 2, RanksPerNode: 1},
		},
	}
	if diff := cmp.Diff(wantMPI, gotMPI); diff != "" {
		t.Errorf("MPIBenchmark (-want +got):\n%s", diff)
	}

	atLeast := benchv1.Expectation{Test: "r", Metric: "read_iops", AtLeast: ptr.To(1000.0)}
	gotStorage := MakeStorageBenchmark("db", "perf").NodeSelector(map[string]string{"disk": "nvme"}).MaxRetries(2).Expectations(atLeast).
		Claims(2, "100Gi", "premium-rwo").Block().FioJobs(benchv1.FioJob{Name: "r", RW: "randread"}).Obj()
	wantStorage := &benchv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "perf"},
		Spec: benchv1.StorageBenchmarkSpec{
			BenchmarkSpecCommon: benchv1.BenchmarkSpecCommon{
				Placement: benchv1.Placement{NodeSelector: map[string]string{"disk": "nvme"}}, MaxRetries: 2,
				Expectations: []benchv1.Expectation{atLeast},
			},
			Volumes: benchv1.StorageVolumes{
				Count: 2, Size: ptr.To(resource.MustParse("100Gi")), StorageClassName: ptr.To("premium-rwo"),
				VolumeMode: ptr.To(corev1.PersistentVolumeBlock),
			},
			Fio: &benchv1.FioSpec{Jobs: []benchv1.FioJob{{Name: "r", RW: "randread"}}},
		},
	}
	if diff := cmp.Diff(wantStorage, gotStorage, quantities); diff != "" {
		t.Errorf("StorageBenchmark (-want +got):\n%s", diff)
	}
}

// Where the API takes exactly one of several fields, the last set wins.
func TestOneOf(t *testing.T) {
	s := MakeStorageBenchmark("db", "perf").NodeSelector(map[string]string{"a": "b"}).Pool("ssd").
		FioPreset(benchv1.FioPresetGCEPD).DD(benchv1.DDTest{Name: "w"}).Claims(1, "1Gi", "").HostPath("/mnt/a").Obj()
	if s.Spec.NodeSelector != nil || s.Spec.Fio != nil || s.Spec.Volumes.Size != nil || s.Spec.Volumes.HostPath == nil {
		t.Errorf("spec %+v", s.Spec)
	}
	m := MakeMPIBenchmark("lat", "hpc").MessageSizes(0, 8).IOR(benchv1.IORSettings{}).Obj()
	if m.Spec.Suite != benchv1.SuiteIOR || m.Spec.MessageSizes != nil {
		t.Errorf("spec %+v", m.Spec)
	}
}

// Obj and Clone copy: a wrapper is a template.
func TestObjCopies(t *testing.T) {
	w := MakeMPIBenchmark("lat", "hpc").Tests("osu_latency").Label("a", "1")
	first := w.Obj()
	first.Spec.Tests[0], first.Labels["a"] = "changed", "changed"
	other := w.Clone().Tests("osu_bw").Label("a", "2").Obj()
	if got := w.Obj(); got.Spec.Tests[0] != "osu_latency" || got.Labels["a"] != "1" || other.Spec.Tests[0] != "osu_bw" || other.Labels["a"] != "2" {
		t.Errorf("the template changed: %+v", got)
	}
}

func TestPod(t *testing.T) {
	owner := MakeJob("j", "ns").Obj()
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	got := MakePod("p", "ns").Label("role", "worker").ControlledBy(owner, batchv1.SchemeGroupVersion.WithKind("Job")).NodeName("n1").
		Spec(corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever}).Phase(corev1.PodFailed).Deleted(at, 30).
		InitContainerTerminated("prep", 0).ContainerTerminated("fio", 137).ContainerWaiting("side", "ImagePullBackOff", "x").Obj()
	if got.Spec.NodeName != "n1" || got.Spec.RestartPolicy != corev1.RestartPolicyNever || got.Labels["role"] != "worker" ||
		!got.DeletionTimestamp.Time.Equal(at.Add(30*time.Second)) || *got.DeletionGracePeriodSeconds != 30 ||
		metav1.GetControllerOf(got) == nil || got.Status.Phase != corev1.PodFailed {
		t.Errorf("pod %+v", got)
	}
	if s := got.Status; s.InitContainerStatuses[0].State.Terminated.ExitCode != 0 || s.ContainerStatuses[0].State.Terminated.ExitCode != 137 ||
		s.ContainerStatuses[1].State.Waiting.Reason != "ImagePullBackOff" {
		t.Errorf("status %+v", s)
	}
}

func TestMPIJob(t *testing.T) {
	j := MakeMPIJob("lat-r0", "hpc").Workers(2).Obj()
	if r := j.Spec.MPIReplicaSpecs; *r[mpiv2.MPIReplicaTypeLauncher].Replicas != 1 || *r[mpiv2.MPIReplicaTypeWorker].Replicas != 2 {
		t.Errorf("replicas %+v", r)
	}
}
