package report

import (
	"math"
	"strings"
	"testing"
)

func TestCompareSpeedupDirection(t *testing.T) {
	runs := group(t, storageSamples(), mpiSamples())
	rows, err := Compare(runs, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	iops := row(t, rows, "randread-4k", "read_iops", "")
	if !near(iops.Speedups[1], 2.6) || iops.LowerIsBetter {
		t.Errorf("IOPS speedup %v (lower is better: %v), want 2.6 = value/baseline", iops.Speedups[1], iops.LowerIsBetter)
	}
	lat := row(t, rows, "randread-4k", "read_clat_mean", "")
	if !near(lat.Speedups[1], 2.55) || !lat.LowerIsBetter {
		t.Errorf("latency speedup %v, want 2.55 = baseline/value", lat.Speedups[1])
	}
	if iops.Speedups[0] != 1 || !math.IsNaN(iops.Speedups[2]) || !math.IsNaN(iops.Medians[2]) {
		t.Errorf("baseline's own speedup %v, a run without the figure: %v %v", iops.Speedups[0], iops.Medians[2], iops.Speedups[2])
	}
	for _, r := range rows {
		if strings.HasSuffix(r.Metric, "_runtime") {
			t.Errorf("headline comparison has %s", r.Metric)
		}
	}
	all, _ := Compare(runs, 0, true)
	if len(all) <= len(rows) {
		t.Errorf("all metrics: %d rows, headline: %d", len(all), len(rows))
	}
	if _, err := Compare(runs, len(runs), false); err == nil {
		t.Error("a baseline out of range is accepted")
	}
}

func TestCompareConvertsUnits(t *testing.T) {
	runs := group(t, mpiSamples())
	r := row(t, rows(t, runs), "osu_bw", "bandwidth", "8")
	if r.Unit != "MB/s" || !near(r.Medians[1], 2.01*1.048576) {
		t.Errorf("MiB/s median in %s: %v, want %v", r.Unit, r.Medians[1], 2.01*1.048576)
	}
}

func rows(t *testing.T, runs []Run) []CompareRow {
	t.Helper()
	out, err := Compare(runs, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFormatSpeedup(t *testing.T) {
	for v, want := range map[float64]string{2.6: "2.60x", 1: "1.00x", 75.3: "75.3x", 250: "250x", 0.0133: "0.0133x (75.2x slower)",
		0.5: "0.5x (2.00x slower)", math.NaN(): "-"} {
		if got := formatSpeedup(v); got != want {
			t.Errorf("formatSpeedup(%v) = %q, want %q", v, got, want)
		}
	}
}
