package page

import (
	"bytes"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/report/synth"
)

// BenchmarkReport100kSamples groups 100,000 samples (20 runs x 5
// repetitions x 50 tests x 20 message sizes) into runs and writes their HTML
// report: 101 plots, 20,000 figures. It reports the page size and the peak
// heap in use (garbage not yet collected included), sampled every
// millisecond. That peak is the benchmark's: about 70 MiB of it is its own
// input, 100,000 decoded samples, which `benchwright report` never holds (it
// reads a line at a time), and the collector lets the heap grow in
// proportion to what is live. hack/bench-report.sh measures the
// whole command, reading the NDJSON included, under /usr/bin/time.
func BenchmarkReport100kSamples(b *testing.B) {
	samples := synth.Samples(20, 5, 50, 20)
	if len(samples) != 100_000 {
		b.Fatalf("%d samples", len(samples))
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	var size int
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		runs, err := compare.Group([]source.Set{{Origin: "100k.ndjson", Samples: samples}})
		if err != nil {
			b.Fatal(err)
		}
		rep, err := New(runs, Options{Title: "100k samples"})
		if err != nil {
			b.Fatal(err)
		}
		var page bytes.Buffer
		if err := rep.HTML(&page); err != nil {
			b.Fatal(err)
		}
		size = page.Len()
	}
	b.StopTimer()
	close(stop)
	b.ReportMetric(float64(size)/(1<<20), "MiB-html")
	b.ReportMetric(float64(peak.Load())/(1<<20), "MiB-peak-heap")
}
