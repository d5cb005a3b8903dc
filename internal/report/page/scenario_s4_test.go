package page

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
	"github.com/benchwright/benchwright/internal/results"
)

// s4Run is one run of seed 004's frequency sweep: dd's buffered write on a
// machine type at a CPU frequency, one bandwidth per repetition.
func s4Run(machine string, mhz float64, bw ...float64) []results.Sample {
	bench := "s4-dd-" + machine + "-" + strconv.Itoa(int(mhz))
	var out []results.Sample
	for rep, v := range bw {
		out = append(out, results.Sample{Kind: "StorageBenchmark", Namespace: "seeds", Benchmark: bench, RunUID: "uid-" + bench,
			Test: "write-buffered-1", Metric: "write_bw", Unit: "MiB/s", Value: v, Repetition: rep,
			Labels: map[string]string{results.LabelMachineType: machine, results.LabelTool: "dd", results.LabelCPUMHz: strconv.FormatFloat(mhz, 'f', -1, 64),
				results.LabelTuning: "cap-" + strconv.Itoa(int(mhz))}})
	}
	return out
}

// TestScenarioS4FrequencyFit is seed 004's "IO ~ CPU frequency": dd's
// bandwidth against the CPU frequency recorded with each run, a line per node
// type. The points are made so the fits are known exactly: on the Haswell-like
// type the run medians 300, 320, 330 MiB/s at 1200, 1300, 1400 MHz, each
// repetition 1 MiB/s either side (slope 0.15, intercept 121.67, r² = 1 - 56/1406);
// on the KNL-like type exactly 40 + 0.1 x (r² = 1).
func TestScenarioS4FrequencyFit(t *testing.T) {
	runs := group(t,
		s4Run("haswell-32", 1200, 299, 300, 301), s4Run("haswell-32", 1300, 319, 320, 321), s4Run("haswell-32", 1400, 329, 330, 331),
		s4Run("knl-68", 1000, 140, 140, 140), s4Run("knl-68", 1100, 150, 150, 150), s4Run("knl-68", 1200, 160, 160, 160),
	)
	if runs[0].Axes[results.LabelCPUMHz] != 1200 {
		t.Fatalf("run %s axes %v, want cpu_mhz 1200", runs[0].Name, runs[0].Axes)
	}
	rep, plots, md := render(t, "s4", runs, Options{Title: "S4: dd bandwidth against CPU frequency"})
	want := []struct {
		series               string
		slope, intercept, r2 float64
		runs, points         int
	}{
		{"haswell-32", 0.15, 316.0 + 2.0/3 - 0.15*1300, 1 - 56.0/1406, 3, 9},
		{"knl-68", 0.1, 40, 1, 3, 9},
	}
	if len(rep.Fits) != len(want) {
		t.Fatalf("%d fits, want %d: %+v", len(rep.Fits), len(want), rep.Fits)
	}
	for i, w := range want {
		f := rep.Fits[i]
		if f.Series != w.series || f.Axis != results.LabelCPUMHz || f.Test != "write-buffered-1" || f.Metric != "write_bw" ||
			len(f.Runs) != w.runs || len(f.X) != w.points {
			t.Errorf("fit %d: %s %s %s/%s, %d runs %d points; want %s cpu_mhz write-buffered-1/write_bw, %d runs %d points",
				i, f.Series, f.Axis, f.Test, f.Metric, len(f.Runs), len(f.X), w.series, w.runs, w.points)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"slope", f.Slope, w.slope}, {"intercept", f.Intercept, w.intercept}, {"r²", f.R2, w.r2}} {
			if math.Abs(c.got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
				t.Errorf("%s: %s = %.12g, want %.12g", w.series, c.name, c.got, c.want)
			}
		}
	}

	p := findPlot(t, plots, figure.PlotScatter, "write-buffered-1: write_bw vs CPU frequency (MHz)")
	if p.XLabel != "CPU frequency (MHz)" || p.YLabel != "write bw (MiB/s)" {
		t.Errorf("axes %q, %q", p.XLabel, p.YLabel)
	}
	wantSeries(t, p, "haswell-32: slope 0.15 MiB/s per MHz, r² 0.960", "knl-68: slope 0.1 MiB/s per MHz, r² 1.000")
	for _, s := range []string{">CPU frequency (MHz)<", ">1200<"} {
		if !strings.Contains(p.SVG, s) {
			t.Errorf("the scatter plot lacks %q", s)
		}
	}
	for _, s := range []string{"## Fits", "| write-buffered-1 | write_bw | CPU frequency (MHz) | haswell-32 | 3 | 9 | 0.15 MiB/s per MHz | 121.7 MiB/s | 0.960 |"} {
		if !strings.Contains(strings.Join(strings.Fields(md), " "), s) { // cells padded to align
			t.Errorf("the markdown report lacks %q:\n%s", s, md)
		}
	}
	var csv bytes.Buffer
	if err := WriteFitsCSV(&csv, rep.Fits); err != nil {
		t.Fatal(err)
	}
	keep(t, "s4.fits.csv", csv.Bytes())
	if lines := strings.Split(strings.TrimSpace(csv.String()), "\n"); len(lines) != 3 ||
		lines[2] != "write-buffered-1,write_bw,MiB/s,cpu_mhz,knl-68,3,9,0.1,40,1" {
		t.Errorf("fits CSV:\n%s", csv.String())
	}
}

// A run is on an axis only when every counted sample has the label as a
// number: one without it, or a word, takes the run off the axis; a user's
// x-NAME label is an axis like cpu_mhz.
func TestAxesNeedANumberOnEverySample(t *testing.T) {
	a, b, c := s4Run("m", 1000, 10, 11), s4Run("m", 2000, 20, 21), s4Run("m", 3000, 30, 31)
	delete(b[1].Labels, results.LabelCPUMHz)
	c[0].Labels[results.LabelCPUMHz] = "fast"
	for i, s := range [][]results.Sample{a, b, c} {
		for _, x := range s {
			x.Labels["x-numa-nodes"] = strconv.Itoa(1 << i)
		}
	}
	runs := group(t, a, b, c)
	if _, ok := runs[1].Axes[results.LabelCPUMHz]; ok {
		t.Errorf("a run with a sample lacking cpu_mhz is on the axis: %v", runs[1].Axes)
	}
	if _, ok := runs[2].Axes[results.LabelCPUMHz]; ok {
		t.Errorf("a run with cpu_mhz \"fast\" is on the axis: %v", runs[2].Axes)
	}
	fits := compare.Fits(runs)
	if len(fits) != 1 || fits[0].Axis != "x-numa-nodes" || fits[0].AxisTitle != "numa nodes" || math.Abs(fits[0].R2-10800.0/11242) > 1e-12 {
		t.Errorf("fits %+v, want only x-numa-nodes, r² = Sxy²/(Sxx Syy) = 60²/(28/3 * 401.5) (cpu_mhz has one run left)", fits)
	}
}

// s4Sweep is seed 004's process sweep on one machine type: dd's buffered
// and direct writes by 1, 2, 4 and 8 processes (tests of one run, named
// by their count), and IOR file per process by 1, 2 and 4 ranks (a run
// each, as a campaign's ior-fpp-1, -2, -4; IOR's tasks label).
func s4Sweep(machine string, ddBW func(mode string, procs int) float64, iorBW func(ranks int) float64) [][]results.Sample {
	dd := "s4-dd-" + machine
	var out [][]results.Sample
	var runDD []results.Sample
	for _, mode := range []string{"buffered", "direct"} {
		for _, n := range []int{1, 2, 4, 8} {
			for rep := range 3 {
				runDD = append(runDD, results.Sample{Kind: "StorageBenchmark", Namespace: "seeds", Benchmark: dd, RunUID: "uid-" + dd,
					Test: "write-" + mode + "-" + strconv.Itoa(n), Metric: "write_bw", Unit: "MiB/s", Value: ddBW(mode, n) + float64(rep-1), Repetition: rep,
					Labels: map[string]string{results.LabelMachineType: machine, results.LabelTool: "dd", results.LabelProcesses: strconv.Itoa(n)}})
			}
		}
	}
	out = append(out, runDD)
	for _, n := range []int{1, 2, 4} {
		bench := "s4-ior-fpp-" + strconv.Itoa(n) + "-" + machine
		var run []results.Sample
		for rep := range 3 {
			run = append(run, results.Sample{Kind: "MPIBenchmark", Namespace: "seeds", Benchmark: bench, RunUID: "uid-" + bench,
				Test: "write", Metric: "bandwidth", Unit: "MiB/s", Value: iorBW(n), Repetition: rep,
				Labels: map[string]string{results.LabelMachineType: machine, results.LabelTool: "ior", "tasks": strconv.Itoa(n), "file_per_proc": "true"}})
		}
		out = append(out, run)
	}
	return out
}

// TestScenarioS4ProcessSweep is seed 004's bandwidth by process count: a
// line per dd mode and machine type through 1, 2, 4 and 8 processes, and
// one per machine type through IOR's 1, 2 and 4 ranks, joining the runs
// whose names differ only in the count.
func TestScenarioS4ProcessSweep(t *testing.T) {
	knl := s4Sweep("knl-68", func(mode string, n int) float64 { return 100 * float64(n) }, func(n int) float64 { return 50 * float64(n) })
	haswell := s4Sweep("haswell-32", func(mode string, n int) float64 { return 300 + 10*float64(n) }, func(n int) float64 { return 400 })
	runs := group(t, append(knl, haswell...)...)
	if got := runs[0].Processes["write-direct-4"]; got != 4 {
		t.Fatalf("run %s processes %v, want write-direct-4 by 4", runs[0].Name, runs[0].Processes)
	}
	_, plots, _ := render(t, "s4-sweep", runs, Options{Title: "S4: bandwidth by processes"})
	dd := findPlot(t, plots, figure.PlotScaling, "write_bw vs processes")
	wantSeries(t, dd, "s4-dd-knl-68: write-buffered", "s4-dd-knl-68: write-direct", "s4-dd-haswell-32: write-buffered", "s4-dd-haswell-32: write-direct")
	ior := findPlot(t, plots, figure.PlotScaling, "bandwidth vs processes")
	wantSeries(t, ior, "s4-ior-fpp-knl-68: write", "s4-ior-fpp-haswell-32: write")
	figs := compare.ScalingFigures(runs)
	for _, f := range figs {
		for _, c := range f.Curves {
			if c.Name == "s4-ior-fpp-knl-68: write" && fmt.Sprint(c.Xys) != "[{1 50} {2 100} {4 200}]" {
				t.Errorf("IOR on knl: %v, want 50, 100, 200 MiB/s at 1, 2, 4 ranks", c.Xys)
			}
			if c.Name == "s4-dd-haswell-32: write-direct" && fmt.Sprint(c.Xys) != "[{1 310} {2 320} {4 340} {8 380}]" {
				t.Errorf("dd direct on haswell: %v", c.Xys)
			}
		}
	}
}

// Seed 004 fits with turbo and without apart (r² 0.79 and 0.76 on
// Haswell): runs whose nodes recorded cpu_boost are fitted per machine
// type and boost setting, so the turbo runs do not bend the capped line.
func TestScenarioS4FitsPerTurbo(t *testing.T) {
	boost := func(on string, s []results.Sample) []results.Sample {
		for i := range s {
			s[i].Labels[results.LabelBoost] = on
		}
		return s
	}
	runs := group(t,
		boost("off", s4Run("haswell-32", 1200, 300)), boost("off", s4Run("haswell-32", 1400, 340)), boost("off", s4Run("haswell-32", 1600, 380)),
		boost("on", s4Run("haswell-32", 2900, 500)), boost("on", s4Run("haswell-32", 3100, 500)),
	)
	fits := compare.Fits(runs)
	if len(fits) != 2 || fits[0].Series != "haswell-32, turbo off" || fits[1].Series != "haswell-32, turbo on" {
		t.Fatalf("fits %+v, want haswell-32 with turbo off, then on", fits)
	}
	if math.Abs(fits[0].Slope-0.2) > 1e-9 || math.Abs(fits[0].R2-1) > 1e-9 || math.Abs(fits[1].Slope) > 1e-9 {
		t.Errorf("turbo off: slope %v r² %v, want 0.2 and 1; turbo on: slope %v, want 0", fits[0].Slope, fits[0].R2, fits[1].Slope)
	}
}
