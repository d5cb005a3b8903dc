package metrics

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// benchmark is what the collector needs of either kind.
type benchmark struct {
	namespace, name string
	status          *benchv1.BenchmarkStatusCommon
	figures         func() []figure
}

// figure is one headline figure: a median over the counted repetitions.
type figure struct {
	test, metric, unit string
	value              float64
}

// kinds are the benchmark kinds the collector lists.
var kinds = []struct {
	name string
	list func(context.Context, client.Reader) ([]benchmark, error)
}{
	{"StorageBenchmark", listStorage},
	{"MPIBenchmark", listMPI},
	{"NetworkBenchmark", listNetwork},
}

func listStorage(ctx context.Context, r client.Reader) ([]benchmark, error) {
	var l benchv1.StorageBenchmarkList
	if err := r.List(ctx, &l); err != nil {
		return nil, err
	}
	out := make([]benchmark, len(l.Items))
	for i := range l.Items {
		b := &l.Items[i]
		out[i] = benchmark{b.Namespace, b.Name, &b.Status.BenchmarkStatusCommon, func() []figure { return storageFigures(b.Status.Results) }}
	}
	return out, nil
}

func listMPI(ctx context.Context, r client.Reader) ([]benchmark, error) {
	var l benchv1.MPIBenchmarkList
	if err := r.List(ctx, &l); err != nil {
		return nil, err
	}
	out := make([]benchmark, len(l.Items))
	for i := range l.Items {
		b := &l.Items[i]
		out[i] = benchmark{b.Namespace, b.Name, &b.Status.BenchmarkStatusCommon, func() []figure { return mpiFigures(&b.Status) }}
	}
	return out, nil
}

func listNetwork(ctx context.Context, r client.Reader) ([]benchmark, error) {
	var l benchv1.NetworkBenchmarkList
	if err := r.List(ctx, &l); err != nil {
		return nil, err
	}
	out := make([]benchmark, len(l.Items))
	for i := range l.Items {
		b := &l.Items[i]
		out[i] = benchmark{b.Namespace, b.Name, &b.Status.BenchmarkStatusCommon, func() []figure { return networkFigures(&b.Status) }}
	}
	return out, nil
}

// networkFigures are status.summary's peak bandwidth over the pairs and the
// lowest small-message latency, labelled with the test they came from.
func networkFigures(st *benchv1.NetworkBenchmarkStatus) []figure {
	var out []figure
	test := func(match func(benchv1.NetworkPairResult) bool) string {
		for _, p := range st.Pairs {
			if match(p) {
				return p.Test
			}
		}
		return ""
	}
	if v := st.Summary.PeakBandwidthMBps; v != nil {
		out = append(out, figure{metric: "bandwidth", unit: "MB/s", value: *v,
			test: test(func(p benchv1.NetworkPairResult) bool { return p.PeakBandwidth != nil && p.PeakBandwidth.Median == *v })})
	}
	if v := st.Summary.LatencyMicroseconds; v != nil {
		out = append(out, figure{metric: "latency", unit: "us", value: *v,
			test: test(func(p benchv1.NetworkPairResult) bool { return p.Latency != nil && p.Latency.Median == *v })})
	}
	return out
}

// storageFigures are each test's read and write IOPS and bandwidth, named as
// the samples and expectations name them (read_iops, write_bw, ...).
func storageFigures(rs []benchv1.StorageTestResult) []figure {
	var out []figure
	add := func(test, metric, unit string, s *benchv1.Stat) {
		if s != nil {
			out = append(out, figure{test: test, metric: metric, unit: unit, value: s.Median})
		}
	}
	for _, r := range rs {
		for _, d := range []struct {
			dir string
			res *benchv1.DirectionResult
		}{{"read", r.Read}, {"write", r.Write}} {
			if d.res == nil {
				continue
			}
			add(r.Test, d.dir+"_iops", "IOPS", d.res.IOPS)
			add(r.Test, d.dir+"_bw", "MiB/s", d.res.BandwidthMiBps)
		}
	}
	return out
}

// mpiFigures are status.summary's latency and peak bandwidth, labelled with
// the test and metric they were taken from (the figures an expectation
// without messageSize is checked against).
func mpiFigures(st *benchv1.MPIBenchmarkStatus) []figure {
	var out []figure
	sum := st.Summary
	if v := sum.LatencyMicroseconds; v != nil {
		f := figure{metric: "latency", unit: "us", value: *v}
		if r := source(st.Results, sum.LatencyMessageSize, *v, "latency"); r != nil {
			f.test = r.Test
		}
		out = append(out, f)
	}
	if v := sum.PeakBandwidthMBps; v != nil {
		f := figure{metric: "bandwidth", unit: "MB/s", value: *v}
		if r := source(st.Results, sum.PeakBandwidthMessageSize, *v, "bandwidth", "bibandwidth"); r != nil {
			f.test, f.metric = r.Test, r.Metric
		}
		out = append(out, f)
	}
	return out
}

// source is the first result of one of metrics with value at size, or nil
// (a status not written by the controller).
func source(rs []benchv1.MPITestResult, size *int64, value float64, metrics ...string) *benchv1.MPITestResult {
	for i, r := range rs {
		if !slices.Contains(metrics, r.Metric) {
			continue
		}
		for _, p := range r.Points {
			if (size == nil || p.Size == *size) && p.Median == value {
				return &rs[i]
			}
		}
	}
	return nil
}
