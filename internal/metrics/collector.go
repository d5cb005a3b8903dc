package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

var (
	benchmarksDesc = prometheus.NewDesc("benchwright_benchmarks",
		"Benchmarks by kind and state (status.state; Pending before the first status write).",
		[]string{"kind", "state"}, nil)
	resultDesc = prometheus.NewDesc("benchwright_result",
		"Headline figure of each succeeded benchmark, the median over counted repetitions: StorageBenchmark read/write IOPS and MiB/s per test, MPIBenchmark latency at the smallest message size and peak bandwidth, NetworkBenchmark peak bandwidth over its pairs and lowest ping-pong latency.",
		[]string{"kind", "namespace", "benchmark", "test", "metric", "unit", "machine_type"}, nil)
)

// states are the values of benchwright_benchmarks' state label, each reported
// (zero included) so that a dashboard's series do not come and go.
var states = []benchv1.BenchmarkState{
	benchv1.StatePending, benchv1.StateWaiting, benchv1.StateRunning, benchv1.StateSucceeded, benchv1.StateFailed,
}

// listTimeout bounds the listing of one scrape, within Prometheus' default
// scrape timeout of 10s.
const listTimeout = 5 * time.Second

// Collector reports benchwright_benchmarks and benchwright_result from the
// benchmarks listed at each scrape, so that the figures survive a restart of
// the manager and go away with their benchmark. Reader is the manager's
// cache: a scrape costs no API call.
type Collector struct {
	Reader client.Reader
	// Log receives listing errors: the kind is then left out of the scrape
	// rather than failing it (and the other metrics with it).
	Log logr.Logger
}

// Register adds a Collector reading from r to reg (controller-runtime's
// metrics.Registry in the manager).
func Register(reg prometheus.Registerer, r client.Reader, log logr.Logger) error {
	return reg.Register(&Collector{Reader: r, Log: log})
}

// Describe sends the descriptions of both metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- benchmarksDesc
	ch <- resultDesc
}

// Collect lists both kinds and sends their counts by state and the figures
// of those that succeeded.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	for _, k := range kinds {
		bs, err := k.list(ctx, c.Reader)
		if err != nil {
			if !errors.As(err, new(*cache.ErrCacheNotStarted)) { // a scrape while the manager starts
				c.Log.Error(err, "listing benchmarks for metrics", "kind", k.name)
			}
			continue
		}
		collectKind(ch, k.name, bs)
	}
}

func collectKind(ch chan<- prometheus.Metric, kind string, bs []benchmark) {
	counts := map[benchv1.BenchmarkState]int{}
	for _, b := range bs {
		counts[stateOf(b.status)]++
		if !meta.IsStatusConditionTrue(b.status.Conditions, benchv1.ConditionSucceeded) {
			continue
		}
		seen := map[[2]string]bool{} // a duplicate series would fail the whole scrape
		for _, f := range b.figures() {
			if seen[[2]string{f.test, f.metric}] {
				continue
			}
			seen[[2]string{f.test, f.metric}] = true
			ch <- prometheus.MustNewConstMetric(resultDesc, prometheus.GaugeValue, f.value,
				kind, b.namespace, b.name, f.test, f.metric, f.unit, b.status.MachineType)
		}
	}
	for _, s := range states {
		ch <- prometheus.MustNewConstMetric(benchmarksDesc, prometheus.GaugeValue, float64(counts[s]), kind, string(s))
	}
}

// stateOf is the benchmark's status.state, Pending before its first status write.
func stateOf(st *benchv1.BenchmarkStatusCommon) benchv1.BenchmarkState {
	if st.State == "" {
		return benchv1.StatePending
	}
	return st.State
}
