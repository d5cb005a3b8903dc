package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/wrappers"
)

func succeeded() []metav1.Condition {
	return []metav1.Condition{{Type: benchv1.ConditionSucceeded, Status: metav1.ConditionTrue, Reason: benchv1.ReasonCompleted}}
}

func storage(name string, state benchv1.BenchmarkState, results ...benchv1.StorageTestResult) *benchv1.StorageBenchmark {
	b := wrappers.MakeStorageBenchmark(name, "perf").State(state).MachineType("c3-standard-8").Results(results...)
	if state == benchv1.StateSucceeded {
		b.Conditions(succeeded()...)
	}
	return b.Obj()
}

func mpi(name string, state benchv1.BenchmarkState) *benchv1.MPIBenchmark {
	b := wrappers.MakeMPIBenchmark(name, "hpc").State(state).MachineType("h3-standard-88")
	if state == benchv1.StateSucceeded {
		b.Conditions(succeeded()...).Summary(benchv1.MPISummary{
			LatencyMicroseconds: ptr.To(1.5), LatencyMessageSize: ptr.To[int64](8),
			PeakBandwidthMBps: ptr.To(12000.0), PeakBandwidthMessageSize: ptr.To[int64](4 << 20),
		}).Results(
			benchv1.MPITestResult{Test: "osu_latency", Metric: "latency", Unit: "us", Points: []benchv1.MPIPoint{
				{Size: 0, Stat: benchv1.Stat{Median: 1.4}}, {Size: 8, Stat: benchv1.Stat{Median: 1.5}},
			}},
			benchv1.MPITestResult{Test: "osu_bw", Metric: "bandwidth", Unit: "MB/s", Points: []benchv1.MPIPoint{
				{Size: 8, Stat: benchv1.Stat{Median: 10}}, {Size: 4 << 20, Stat: benchv1.Stat{Median: 12000}},
			}},
		)
	}
	return b.Obj()
}

func network(name string, state benchv1.BenchmarkState) *benchv1.NetworkBenchmark {
	b := wrappers.MakeNetworkBenchmark(name, "net").Obj()
	b.Status.State, b.Status.MachineType = state, "c3-highcpu-176"
	b.Status.Conditions = succeeded()
	b.Status.Summary = benchv1.NetworkSummary{PeakBandwidthMBps: ptr.To(7322.0), LatencyMicroseconds: ptr.To(2.4)}
	b.Status.Pairs = []benchv1.NetworkPairResult{
		{Pair: "n0:c0 -> n0:c8", Test: "fi_msg_bw", PeakBandwidth: stat(7322)},
		{Pair: "n0:c0 -> n0:c8", Test: "fi_msg_pingpong", Latency: stat(2.4)},
	}
	return b
}

func stat(median float64) *benchv1.Stat {
	return &benchv1.Stat{Median: median, Min: median, Max: median, N: 3}
}

func newReader(t *testing.T, funcs *interceptor.Funcs, objs ...client.Object) client.Reader {
	t.Helper()
	s := runtime.NewScheme()
	if err := benchv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	b := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...)
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	return b.Build()
}

func TestCollectorReportsStatesAndHeadlines(t *testing.T) {
	r := newReader(t, nil,
		storage("randread", benchv1.StateSucceeded,
			benchv1.StorageTestResult{Test: "randread", Read: &benchv1.DirectionResult{IOPS: stat(412000), BandwidthMiBps: stat(1609.4), LatencyP99Microseconds: stat(900)}},
			benchv1.StorageTestResult{Test: "randrw", Read: &benchv1.DirectionResult{IOPS: stat(100)}, Write: &benchv1.DirectionResult{IOPS: stat(50)}},
		),
		// Only succeeded benchmarks have figures, partial ones of a failure do not count.
		storage("broken", benchv1.StateFailed,
			benchv1.StorageTestResult{Test: "randread", Read: &benchv1.DirectionResult{IOPS: stat(1)}}),
		storage("running", benchv1.StateRunning),
		storage("new", ""),
		mpi("lat", benchv1.StateSucceeded),
		mpi("queued", benchv1.StateWaiting),
		network("chiplets", benchv1.StateSucceeded),
	)
	want := `
# HELP benchwright_benchmarks Benchmarks by kind and state (status.state; Pending before the first status write).
# TYPE benchwright_benchmarks gauge
benchwright_benchmarks{kind="MPIBenchmark",state="Failed"} 0
benchwright_benchmarks{kind="MPIBenchmark",state="Pending"} 0
benchwright_benchmarks{kind="MPIBenchmark",state="Running"} 0
benchwright_benchmarks{kind="MPIBenchmark",state="Succeeded"} 1
benchwright_benchmarks{kind="MPIBenchmark",state="Waiting"} 1
benchwright_benchmarks{kind="NetworkBenchmark",state="Failed"} 0
benchwright_benchmarks{kind="NetworkBenchmark",state="Pending"} 0
benchwright_benchmarks{kind="NetworkBenchmark",state="Running"} 0
benchwright_benchmarks{kind="NetworkBenchmark",state="Succeeded"} 1
benchwright_benchmarks{kind="NetworkBenchmark",state="Waiting"} 0
benchwright_benchmarks{kind="StorageBenchmark",state="Failed"} 1
benchwright_benchmarks{kind="StorageBenchmark",state="Pending"} 1
benchwright_benchmarks{kind="StorageBenchmark",state="Running"} 1
benchwright_benchmarks{kind="StorageBenchmark",state="Succeeded"} 1
benchwright_benchmarks{kind="StorageBenchmark",state="Waiting"} 0
# HELP benchwright_result Headline figure of each succeeded benchmark, the median over counted repetitions: StorageBenchmark read/write IOPS and MiB/s per test, MPIBenchmark latency at the smallest message size and peak bandwidth, NetworkBenchmark peak bandwidth over its pairs and lowest ping-pong latency.
# TYPE benchwright_result gauge
benchwright_result{benchmark="lat",kind="MPIBenchmark",machine_type="h3-standard-88",metric="bandwidth",namespace="hpc",test="osu_bw",unit="MB/s"} 12000
benchwright_result{benchmark="lat",kind="MPIBenchmark",machine_type="h3-standard-88",metric="latency",namespace="hpc",test="osu_latency",unit="us"} 1.5
benchwright_result{benchmark="chiplets",kind="NetworkBenchmark",machine_type="c3-highcpu-176",metric="bandwidth",namespace="net",test="fi_msg_bw",unit="MB/s"} 7322
benchwright_result{benchmark="chiplets",kind="NetworkBenchmark",machine_type="c3-highcpu-176",metric="latency",namespace="net",test="fi_msg_pingpong",unit="us"} 2.4
benchwright_result{benchmark="randread",kind="StorageBenchmark",machine_type="c3-standard-8",metric="read_bw",namespace="perf",test="randread",unit="MiB/s"} 1609.4
benchwright_result{benchmark="randread",kind="StorageBenchmark",machine_type="c3-standard-8",metric="read_iops",namespace="perf",test="randread",unit="IOPS"} 412000
benchwright_result{benchmark="randread",kind="StorageBenchmark",machine_type="c3-standard-8",metric="read_iops",namespace="perf",test="randrw",unit="IOPS"} 100
benchwright_result{benchmark="randread",kind="StorageBenchmark",machine_type="c3-standard-8",metric="write_iops",namespace="perf",test="randrw",unit="IOPS"} 50
`
	if err := testutil.CollectAndCompare(&Collector{Reader: r}, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if problems, err := testutil.CollectAndLint(&Collector{Reader: r}); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
}

// A deleted benchmark's figures leave with it: the collector lists at every scrape.
func TestCollectorForgetsDeletedBenchmarks(t *testing.T) {
	b := mpi("lat", benchv1.StateSucceeded)
	r := newReader(t, nil, b)
	c := &Collector{Reader: r}
	if n := testutil.CollectAndCount(c, "benchwright_result"); n != 2 {
		t.Fatalf("%d benchwright_result series before the deletion, want 2", n)
	}
	if err := r.(client.Client).Delete(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(c, "benchwright_result"); n != 0 {
		t.Errorf("%d benchwright_result series after the deletion, want 0", n)
	}
}

// A kind that cannot be listed is left out; the others still report, and
// the scrape does not fail.
func TestCollectorSkipsAKindItCannotList(t *testing.T) {
	r := newReader(t, &interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		if _, ok := list.(*benchv1.MPIBenchmarkList); ok {
			return errors.New("cache not started")
		}
		return c.List(ctx, list, opts...)
	}}, storage("new", ""))
	reg := prometheus.NewPedanticRegistry()
	if err := Register(reg, r, testr.New(t)); err != nil {
		t.Fatal(err)
	}
	n, err := testutil.GatherAndCount(reg, "benchwright_benchmarks")
	if err != nil {
		t.Fatal(err)
	}
	if n != 2*len(states) {
		t.Errorf("%d benchwright_benchmarks series, want %d (StorageBenchmark and NetworkBenchmark only)", n, 2*len(states))
	}
}

// MPI figures whose source is not in status.results keep the summary's
// metric with an empty test.
func TestMPIFiguresWithoutResults(t *testing.T) {
	st := &benchv1.MPIBenchmarkStatus{Summary: benchv1.MPISummary{LatencyMicroseconds: ptr.To(2.0), PeakBandwidthMBps: ptr.To(3.0)}}
	got := mpiFigures(st)
	want := []figure{{metric: "latency", unit: "us", value: 2}, {metric: "bandwidth", unit: "MB/s", value: 3}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("mpiFigures = %+v, want %+v", got, want)
	}
}

func TestSecondsIsNeverNegative(t *testing.T) {
	now := time.Now()
	if s := seconds(now, now.Add(-time.Second)); s != 0 {
		t.Errorf("seconds = %v, want 0", s)
	}
	if s := seconds(now, now.Add(90*time.Second)); s != 90 {
		t.Errorf("seconds = %v, want 90", s)
	}
}
