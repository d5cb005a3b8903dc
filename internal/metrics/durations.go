// Package metrics holds benchwright's Prometheus metrics, registered on
// controller-runtime's registry and so served by the manager's metrics
// endpoint: how long benchmarks queue and run, how many are in each state, and
// the headline figure of each one that succeeded.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// durationBuckets span 1 s (a benchmark that did not queue) to about two
// days (factor 3).
var durationBuckets = prometheus.ExponentialBuckets(1, 3, 12)

var (
	// QueueSeconds is the time from a benchmark's creation to its
	// status.startTime, observed once when it starts.
	QueueSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "benchwright_benchmark_queue_seconds",
		Help:    "Time from a benchmark's creation to its first repetition (status.startTime), by kind.",
		Buckets: durationBuckets,
	}, []string{"kind"})

	// RunSeconds is the time from a benchmark's status.startTime to its
	// status.completionTime, observed once when it succeeds or fails.
	RunSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "benchwright_benchmark_run_seconds",
		Help:    "Time from a benchmark's first repetition to its success or failure (status.completionTime), by kind.",
		Buckets: durationBuckets,
	}, []string{"kind"})
)

// HistoryChecks counts the runs checked against their configurations'
// histories, by kind and verdict (Regressed, Improved, Steady, TooFewRuns,
// HistoryUnavailable).
var HistoryChecks = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "benchwright_history_checks_total",
	Help: "Runs checked against their configurations' histories in the results database, by kind and verdict.",
}, []string{"kind", "verdict"})

func init() {
	ctrlmetrics.Registry.MustRegister(QueueSeconds, RunSeconds, HistoryChecks)
}

// ObserveQueued records that a benchmark of kind created at created started at started.
func ObserveQueued(kind string, created, started time.Time) {
	QueueSeconds.WithLabelValues(kind).Observe(seconds(created, started))
}

// ObserveRun records that a benchmark of kind started at started finished at finished.
func ObserveRun(kind string, started, finished time.Time) {
	RunSeconds.WithLabelValues(kind).Observe(seconds(started, finished))
}

// seconds is to - from, never negative (the two times may come from clocks
// of different machines).
func seconds(from, to time.Time) float64 {
	return max(to.Sub(from), 0).Seconds()
}
