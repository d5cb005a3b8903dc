//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// histograms is the manager's histograms, by "<family>{<label>=<value>}" for
// the label that tells them apart (a controller's name).
type histograms map[string]*dto.Histogram

// scaleHistograms reads where a reconcile's time goes: each benchmark
// controller's wait in its work queue and its reconcile time.
func scaleHistograms(t *testing.T) histograms {
	t.Helper()
	resp := getMetrics(t)
	defer resp.Body.Close()
	var p expfmt.TextParser
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the manager's metrics: %v", err)
	}
	out := histograms{}
	for family, by := range map[string]string{
		"workqueue_queue_duration_seconds":          "name",
		"controller_runtime_reconcile_time_seconds": "controller",
	} {
		f := families[family]
		if f == nil {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == by && m.GetHistogram() != nil {
					key := family + "{" + l.GetValue() + "}"
					out[key] = addHistograms(out[key], m.GetHistogram())
				}
			}
		}
	}
	return out
}

// addHistograms sums two histograms of the same buckets (a nil is empty).
func addHistograms(a, b *dto.Histogram) *dto.Histogram {
	if a == nil {
		return b
	}
	sum, count := a.GetSampleSum()+b.GetSampleSum(), a.GetSampleCount()+b.GetSampleCount()
	out := &dto.Histogram{SampleSum: &sum, SampleCount: &count}
	for i, bk := range a.GetBucket() {
		c := bk.GetCumulativeCount()
		if i < len(b.GetBucket()) {
			c += b.GetBucket()[i].GetCumulativeCount()
		}
		out.Bucket = append(out.Bucket, &dto.Bucket{UpperBound: bk.UpperBound, CumulativeCount: &c})
	}
	return out
}

// spread is what happened between two readings of one histogram: count,
// mean and p99 (the upper bound of the bucket that holds it).
func spread(before, after *dto.Histogram) (count uint64, mean, p99 time.Duration) {
	if after == nil {
		return 0, 0, 0
	}
	var bCount uint64
	var bSum float64
	bBuckets := map[float64]uint64{}
	if before != nil {
		bCount, bSum = before.GetSampleCount(), before.GetSampleSum()
		for _, bk := range before.GetBucket() {
			bBuckets[bk.GetUpperBound()] = bk.GetCumulativeCount()
		}
	}
	count = after.GetSampleCount() - bCount
	if count == 0 {
		return 0, 0, 0
	}
	mean = seconds((after.GetSampleSum() - bSum) / float64(count))
	p99 = time.Duration(math.MaxInt64)
	for _, bk := range after.GetBucket() {
		if float64(bk.GetCumulativeCount()-bBuckets[bk.GetUpperBound()]) >= 0.99*float64(count) {
			p99 = seconds(bk.GetUpperBound())
			break
		}
	}
	return count, mean, p99
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// report is one line per histogram that moved: count, mean and p99.
func (h histograms) report(before histograms) string {
	var keys []string
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		n, mean, p99 := spread(before[k], h[k])
		if n == 0 {
			continue
		}
		q := "> largest bucket"
		if p99 != time.Duration(math.MaxInt64) {
			q = "≤ " + p99.String()
		}
		fmt.Fprintf(&b, "  %-60s %7d  mean %10s  p99 %s\n", k, n, mean.Round(100*time.Microsecond), q)
	}
	return b.String()
}
