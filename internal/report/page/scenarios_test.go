package page

import (
	"bytes"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
	"github.com/benchwright/benchwright/internal/results"
)

const (
	storage = "StorageBenchmark"
	mpiKind = "MPIBenchmark"
)

// render builds the report of runs in every format, keeps them for a look,
// checks the HTML's structure and returns the report and its plots.
func render(t *testing.T, name string, runs []compare.Run, opts Options) (*Report, []figure.Plot, string) {
	t.Helper()
	rep, err := New(runs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var html, md, csv bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	keep(t, name+".html", html.Bytes())
	keep(t, name+".md", md.Bytes())
	keep(t, name+".csv", csv.Bytes())
	plots := pagePlots(t, rep)
	checkHTML(t, html.String(), plots)
	return rep, plots, md.String()
}

// findPlot is the plot of kind whose title has prefix, failing when absent.
func findPlot(t *testing.T, plots []figure.Plot, kind figure.PlotKind, prefix string) figure.Plot {
	t.Helper()
	var titles []string
	for _, p := range plots {
		if p.Kind == kind && strings.HasPrefix(p.Title, prefix) {
			return p
		}
		titles = append(titles, string(p.Kind)+": "+p.Title)
	}
	t.Fatalf("no %s plot titled %q...; plots:\n%s", kind, prefix, strings.Join(titles, "\n"))
	return figure.Plot{}
}

func wantSeries(t *testing.T, p figure.Plot, want ...string) {
	t.Helper()
	if strings.Join(p.Series, "|") != strings.Join(want, "|") {
		t.Errorf("%q: series %q, want %q", p.Title, p.Series, want)
	}
}

// row is the comparison row of test, metric and size.
func row(t *testing.T, rows []compare.Row, test, metric, size string) compare.Row {
	t.Helper()
	for _, r := range rows {
		if r.Test == test && r.Metric == metric && r.MsgSize == size {
			return r
		}
	}
	t.Fatalf("no comparison row %s %s %s", test, metric, size)
	return compare.Row{}
}

// alongOf is the report's comparison along dimension dim, failing when
// absent.
func alongOf(t *testing.T, rep *Report, dim string) compare.Along {
	t.Helper()
	var names []string
	for _, a := range rep.Along {
		if a.Dimension.Name == dim {
			return a
		}
		names = append(names, a.Dimension.Name)
	}
	t.Fatalf("no comparison along %s; along: %q (%s)", dim, names, rep.AlongNote)
	return compare.Along{}
}

// ratioAlong is the ratio to the baseline of value's run in the group
// keyed key (the other dimensions' values) of the comparison along dim,
// for a test, metric and size.
func ratioAlong(t *testing.T, rep *Report, dim string, key []string, value, test, metric, size string) float64 {
	t.Helper()
	a := alongOf(t, rep, dim)
	g := groupOf(t, a, key)
	return row(t, g.Rows, test, metric, size).Speedups[slices.Index(a.Dimension.Values, value)]
}

// groupOf is the group of a keyed key, failing when absent.
func groupOf(t *testing.T, a compare.Along, key []string) compare.AlongGroup {
	t.Helper()
	for _, g := range a.Groups {
		if slices.Equal(g.Key, key) {
			return g
		}
	}
	t.Fatalf("%s: no group %q", alongTitle(a), key)
	return compare.AlongGroup{}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// value is the value of the first sample of test and metric.
func value(samples []results.Sample, metric string) float64 {
	for _, s := range samples {
		if s.Metric == metric {
			return s.Value
		}
	}
	return math.NaN()
}

// renamed gives fio's job names the workload names a StorageBenchmark uses.
func renamed(samples []results.Sample, names map[string]string) []results.Sample {
	out := make([]results.Sample, len(samples))
	for i, s := range samples {
		if n, ok := names[s.Test]; ok {
			s.Test = n
		}
		out[i] = s
	}
	return out
}

// TestScenarioS0 is seed 000: fio workloads per machine type with a ratio
// table ("c3 random read = Nx c2"), and IMB PingPong per message size for
// three machine types side by side. The fixtures are outputs of other disks
// and clusters standing in for the machine types; c2d's randread-4k is c3's
// scaled by 0.8 (there is no third real 4k randread output).
func TestScenarioS0(t *testing.T) {
	c2read := parseFixture(t, "fio", "fio/fio3.1_randread_4k_qd16_nj1_sata_dup0.00keys.json")
	c3read := parseFixture(t, "fio", "fio/fio3.33_randread_4k_qd32_nj1_nvme.json")
	fioRuns := group(t,
		newRun(storage).add(renamed(c2read, map[string]string{"random-read": "randread-4k"}), "fio-c2", "c2-standard-60", "", 0, 1).
			add(renamed(parseFixture(t, "fio", "fio/fio2.17_legacy_usec_randread_randwrite_2groups_pkb.json"), map[string]string{
				"rand_16k_read_100%-io-depth-1-num-jobs-2": "randread-16k-qd1", "rand_16k_write_100%-io-depth-1-num-jobs-2": "randwrite-16k-qd1"}),
				"fio-c2", "c2-standard-60", "", 0, 1).obj(),
		newRun(storage).add(c3read, "fio-c3", "c3-highcpu-176", "randread-4k", 0, 1).
			add(parseFixture(t, "fio", "fio/fio3.33_randwrite_4k_qd8_numjobs8_nvme.json"), "fio-c3", "c3-highcpu-176", "randwrite-4k", 0, 1).
			add(parseFixture(t, "fio", "fio/fio3.33_randrw65_4k_qd16_nj1_nvme.json"), "fio-c3", "c3-highcpu-176", "randrw65-4k", 0, 1).obj(),
		newRun(storage).add(c3read, "fio-c2d", "c2d-standard-112", "randread-4k", 0, 0.8).
			add(parseFixture(t, "fio", "fio/fio3.28_randrw_256k_gtod_reduce_flux_gke.json"), "fio-c2d", "c2d-standard-112", "randrw-256k", 0, 1).obj(),
	)
	rep, plots, md := render(t, "s0-fio", fioRuns, Options{Title: "S0: fio on C2, C3 and C2D"})
	// The runs differ in their machine type alone: the comparison is along
	// it, against the first.
	if got := ratioAlong(t, rep, results.LabelMachineType, nil, "c3-highcpu-176", "randread-4k", "read_iops", ""); !near(got, value(c3read, "read_iops")/value(c2read, "read_iops")) {
		t.Errorf("c3 / c2 random read = %.3gx, want %.3gx", got, value(c3read, "read_iops")/value(c2read, "read_iops"))
	}
	if !strings.Contains(md, "c3-highcpu-176 speedup vs c2-standard-60") || rep.Comparison != nil {
		t.Errorf("markdown lacks the speedup column, or keeps the single-baseline comparison:\n%s", md)
	}
	wantSeries(t, findPlot(t, plots, figure.PlotBars, "every figure per test and run"), "fio-c2 (c2-standard-60)", "fio-c3 (c3-highcpu-176)", "fio-c2d (c2d-standard-112)")

	mpiRuns := group(t,
		newRun(mpiKind).add(parseFixture(t, "imb", "imb/imb_2017u2_pingpong_macos_hpcbench.txt"), "imb-c2", "c2-standard-8", "", 0, 1).obj(),
		newRun(mpiKind).add(parseFixture(t, "imb", "imb/imb_2021.3_pingpong_full_hpcx_azure.txt"), "imb-c2d", "c2d-standard-8", "", 0, 1).obj(),
		newRun(mpiKind).add(parseFixture(t, "imb", "imb/imb_2021.2_pingpong_intelmpi_oci.txt"), "imb-c3", "c3-highcpu-8", "", 0, 1).obj(),
	)
	_, plots, _ = render(t, "s0-imb", mpiRuns, Options{Title: "S0: IMB PingPong on C2, C2D and C3"})
	all := []string{"imb-c2 (c2-standard-8)", "imb-c2d (c2d-standard-8)", "imb-c3 (c3-highcpu-8)"}
	wantSeries(t, findPlot(t, plots, figure.PlotLines, "PingPong: latency"), all...)
	wantSeries(t, findPlot(t, plots, figure.PlotLines, "PingPong: bandwidth"), all...)
}

// TestScenarioS1 is seed 001: OSU latency and bandwidth against message size
// on log-log axes, a curve per run, and the latency ratio per size. No real
// on-node output is in the fixtures: the runs are a TCP cloud pair (GKE
// latency, AKS bandwidth) and a Slingshot pair.
func TestScenarioS1(t *testing.T) {
	tcpLat := parseFixture(t, "osu", "osu/osu_latency_v5.8_gke_flux.txt")
	fastLat := parseFixture(t, "osu", "osu/osu_latency_v7.5_validation_cscs_mpich.txt")
	runs := group(t,
		newRun(mpiKind).add(fastLat, "osu-slingshot", "gh200", "", 0, 1).
			add(parseFixture(t, "osu", "osu/osu_bw_v7.5_validation_cscs_ompi.txt"), "osu-slingshot", "gh200", "", 0, 1).obj(),
		newRun(mpiKind).add(tcpLat, "osu-tcp", "cloud-vm", "", 0, 1).
			add(parseFixture(t, "osu", "osu/osu_bw_v5.8_azure_aks.txt"), "osu-tcp", "cloud-vm", "", 0, 1).obj(),
	)
	rep, plots, _ := render(t, "s1-osu", runs, Options{Title: "S1: OSU point-to-point, two fabrics"})
	for _, title := range []string{"osu_latency: latency vs message size", "osu_bw: bandwidth vs message size"} {
		p := findPlot(t, plots, figure.PlotLines, title)
		wantSeries(t, p, "osu-slingshot (gh200)", "osu-tcp (cloud-vm)")
		if p.XLabel != "message size (bytes)" {
			t.Errorf("%s: x label %q", title, p.XLabel)
		}
	}
	if p := findPlot(t, plots, figure.PlotLines, "osu_latency"); p.YLabel != "latency (µs)" {
		t.Errorf("y label %q, want latency (µs)", p.YLabel)
	}
	if got, want := ratioAlong(t, rep, results.LabelMachineType, nil, "cloud-vm", "osu_latency", "latency", "8"), 3.07/31.82; !near(got, want) {
		t.Errorf("tcp speedup at 8 B = %v, want %v (slower)", got, want)
	}
}

// TestScenarioS2 is seed 002: box plots of bandwidth per size over ten
// repetitions after a warm-up one, per pair of chiplets. The repetitions are
// the real osu_bw outputs with a deterministic spread of a few percent; the
// warm-up is 100 times off and must not show.
func TestScenarioS2(t *testing.T) {
	pairs := []struct{ name, fixture string }{
		{"chiplet-0-1", "osu/osu_bw_v7.5_validation_cscs_ompi.txt"},
		{"chiplet-0-4", "osu/osu_bw_v5.8_azure_aks.txt"},
	}
	var samples [][]results.Sample
	for _, p := range pairs {
		bw := parseFixture(t, "osu", p.fixture)
		r := newRun(mpiKind).add(bw, p.name, "c3d-standard-360", "", 0, 100)
		for rep := 1; rep <= 10; rep++ {
			r.add(bw, p.name, "c3d-standard-360", "", rep, 1+0.04*math.Sin(float64(rep*7)))
		}
		samples = append(samples, r.warmup(0).obj())
	}
	runs := group(t, samples...)
	for _, r := range runs {
		if r.Repetitions != 10 || r.Warmups != 1 {
			t.Errorf("%s: %d counted and %d warm-up repetitions, want 10 and 1", r.Name, r.Repetitions, r.Warmups)
		}
	}
	_, plots, _ := render(t, "s2-boxes", runs, Options{Title: "S2: chiplet-to-chiplet bandwidth"})
	p := findPlot(t, plots, figure.PlotBoxes, "osu_bw: bandwidth over repetitions")
	wantSeries(t, p, "chiplet-0-1 (c3d-standard-360)", "chiplet-0-4 (c3d-standard-360)")
	for _, r := range runs {
		for _, s := range r.Summaries {
			if s.Stats.N != 10 {
				t.Fatalf("%s %s: n = %d, want 10", r.Name, s.Test, s.Stats.N)
			}
		}
	}
}

// TestScenarioS3 is seed 003: the tuning ladder, one run per step in
// campaign order, as bars of the latency at 8 bytes, and a table of the node
// settings each step recorded, the changed ones marked. The steps are the
// GKE osu_latency output scaled down as the seed's steps go (about 32 ->
// 9.6 µs); each step's labels are what its nodes record (pool placement and
// threads per core, the tuning, the tuner's firewall count, the node-facts
// step's mitigations, SELinux, MTU and SMT).
func TestScenarioS3(t *testing.T) {
	lat := parseFixture(t, "osu", "osu/osu_latency_v5.8_gke_flux.txt")
	base := map[string]string{results.LabelThreadsPerCore: "2", results.LabelSMT: "1", results.LabelFirewallRules: "14",
		results.LabelMitigations: "on", results.LabelSELinux: "absent", results.LabelMTU: "1460"}
	steps := []struct {
		name   string
		factor float64
		set    map[string]string
	}{
		{"s3-0-default", 1, nil},
		{"s3-1-compact", 0.86, map[string]string{results.LabelPlacement: "COMPACT"}},
		{"s3-2-smt-off", 0.72, map[string]string{results.LabelThreadsPerCore: "1", results.LabelSMT: "0"}},
		{"s3-3-network-latency", 0.5, map[string]string{results.LabelTuning: "network-latency"}},
		{"s3-4-firewall-off", 0.4, map[string]string{results.LabelFirewallRules: "0"}},
		{"s3-5-mitigations-off", 0.3, map[string]string{results.LabelMitigations: "off"}},
	}
	var samples [][]results.Sample
	var names []string
	labels := maps.Clone(base)
	for _, s := range steps {
		maps.Copy(labels, s.set) // each step keeps the ones before
		r := newRun(mpiKind)
		for rep := range 3 {
			r.add(lat, s.name, "c2-standard-60", "", rep, s.factor*(1+0.02*float64(rep-1)))
		}
		for i := range r.samples {
			maps.Copy(r.samples[i].Labels, labels)
			// The frequency is read per repetition: it differs, and is no
			// run-wide setting.
			r.samples[i].Labels[results.LabelCPUMHz] = strconv.Itoa(3100 - r.samples[i].Repetition)
		}
		samples = append(samples, r.obj())
		names = append(names, s.name+" (c2-standard-60)")
	}
	runs := group(t, samples...)
	rep, plots, md := render(t, "s3-ladder", runs, Options{Title: "S3: the MPI tuning ladder"})
	bars := findPlot(t, plots, figure.PlotBars, "latency at 8 B")
	wantSeries(t, bars, names...)
	r := row(t, rep.Comparison, "osu_latency", "latency", "8")
	if !near(r.Speedups[5], 1/0.3) {
		t.Errorf("last step speedup = %v, want %v", r.Speedups[5], 1/0.3)
	}
	if !strings.Contains(md, "3.33x") {
		t.Errorf("markdown lacks the 3.33x speedup:\n%s", md)
	}
	// The ladder table: a row per step, a column per recorded setting, and
	// what each step changed.
	facts, ladder := compare.LadderOf(runs)
	var columns []string
	for _, f := range facts {
		columns = append(columns, f.Name)
	}
	if want := []string{"placement", "threads/core", "SMT active", "tuning", "firewall rules", "mitigations", "SELinux", "MTU"}; !slices.Equal(columns, want) {
		t.Errorf("ladder columns %v, want %v", columns, want)
	}
	wantChanges := [][]string{nil, {"placement — → COMPACT"}, {"threads/core 2 → 1", "SMT active 1 → 0"},
		{"tuning — → network-latency"}, {"firewall rules 14 → 0"}, {"mitigations on → off"}}
	for i, s := range ladder {
		if !slices.Equal(s.Changes, wantChanges[i]) {
			t.Errorf("step %d changed %q, want %q", i+1, s.Changes, wantChanges[i])
		}
	}
	for _, want := range []string{"## Tuning ladder: node settings per step", "| 6 | s3-5-mitigations-off (c2-standard-60) | COMPACT | 1 | 0 | network-latency | 0 | off | absent | 1460 | mitigations on → off |"} {
		if !strings.Contains(strings.Join(strings.Fields(md), " "), want) { // the columns' padding aside
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(bars.Caption, "s3-4-firewall-off: firewall rules 14 → 0") {
		t.Errorf("the ladder chart's caption does not say what the steps changed: %s", bars.Caption)
	}
	var html bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(html.String(), `class="changed"`); got != 6 {
		t.Errorf("%d changed cells marked in the HTML ladder table, want 6", got)
	}
	// Runs on the same settings are no ladder.
	if _, same := compare.LadderOf(runs[:1]); same != nil {
		t.Error("one run makes a ladder")
	}
}

// TestScenarioS4 is seed 004: IOR and dd bandwidth per mode on two node
// types, repeated three times, with the ratio between them.
func TestScenarioS4(t *testing.T) {
	spread := []float64{1, 0.97, 1.03}
	a, b := newRun(storage), newRun(storage)
	for rep, f := range spread {
		a.add(parseFixture(t, "ior", "ior/ior_3.0.1_text_write_read_1task_bgq_hpcbench.txt"), "io-n2", "n2-standard-8", "", rep, f).
			add(parseFixture(t, "dd", "dd/dd_gnu_old_format_noGiB_with_time_nersc.txt"), "io-n2", "n2-standard-8", "dd-dsync", rep, f)
		b.add(parseFixture(t, "ior", "ior/ior_4.0.0rc1_text_1task_metrics-operator.txt"), "io-c3", "c3-standard-8", "", rep, f).
			add(parseFixture(t, "dd", "dd/dd_gnu_1GiB_oflag_direct_notable-notes.txt"), "io-c3", "c3-standard-8", "dd-dsync", rep, f)
	}
	runs := group(t, a.obj(), b.obj())
	rep, plots, _ := render(t, "s4-io", runs, Options{Title: "S4: the I/O gap between node types"})
	both := []string{"io-n2 (n2-standard-8)", "io-c3 (c3-standard-8)"}
	// One figure of small multiples: a panel per metric (IOR's bandwidth,
	// dd's write_bw...), a bar per run; three repetitions draw no boxes.
	bars := findPlot(t, plots, figure.PlotBars, "every figure per test and run")
	wantSeries(t, bars, both...)
	for _, panel := range []string{">bandwidth (MiB/s)<", ">write_bw (MiB/s)<"} {
		if !strings.Contains(bars.SVG, panel) {
			t.Errorf("the figure has no panel %s", panel)
		}
	}
	if got := ratioAlong(t, rep, results.LabelMachineType, nil, "c3-standard-8", "write", "bandwidth", ""); !near(got, 443.65/75.82) {
		t.Errorf("IOR write c3 / n2 = %v, want %v", got, 443.65/75.82)
	}
}
