package imb

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

// tableRow is one table row as printed: its figures by metric.
type tableRow struct {
	test, msgSize, reps string
	want                map[string]float64
}

// indexRows indexes samples by test and msg_size: figures by metric, plus the
// iterations label under the key "iterations".
func indexRows(t *testing.T, samples []results.Sample) map[[2]string]map[string]float64 {
	t.Helper()
	rows := map[[2]string]map[string]float64{}
	for _, s := range samples {
		key := [2]string{s.Test, s.Labels[results.LabelMsgSize]}
		if rows[key] == nil {
			rows[key] = map[string]float64{}
		}
		if _, dup := rows[key][s.Metric]; dup {
			t.Fatalf("%v: metric %s twice", key, s.Metric)
		}
		rows[key][s.Metric] = s.Value
		rows[key]["iterations "+s.Labels[labelIterations]] = 0
	}
	return rows
}

// sampleTests lists the tests of samples in order of first appearance.
func sampleTests(samples []results.Sample) []string {
	var tests []string
	for _, s := range samples {
		if len(tests) == 0 || tests[len(tests)-1] != s.Test {
			tests = append(tests, s.Test)
		}
	}
	return tests
}

var fullRunTests = []string{"PingPong", "PingPing", "Sendrecv", "Exchange", "Allreduce", "Reduce",
	"Reduce_scatter", "Allgather", "Allgatherv", "Gather", "Gatherv", "Scatter", "Scatterv", "Alltoall",
	"Alltoallv", "Bcast", "Barrier"}

// TestParseFixtures parses every real IMB output of the shared fixtures
// and checks the first, middle and last row of each benchmark against the
// figures as printed in the file.
func TestParseFixtures(t *testing.T) {
	tests := []struct {
		file    string
		n       int // samples
		version string
		bwUnit  string
		tests   []string
		labels  map[string]string // on every sample besides tool and tool_version
		rows    []tableRow
	}{{
		file: "2017u2_pingpong_macos_hpcbench", n: 24 * 2, version: "2017 Update 2", bwUnit: "MB/s",
		tests: []string{"PingPong"}, labels: map[string]string{"ranks": "2"},
		rows: []tableRow{
			{"PingPong", "0", "1000", map[string]float64{"latency": 0.18, "bandwidth": 0.00}},
			{"PingPong", "1024", "1000", map[string]float64{"latency": 0.43, "bandwidth": 2376.19}},
			{"PingPong", "4194304", "10", map[string]float64{"latency": 797.81, "bandwidth": 5257.28}},
		},
	}, {
		file: "2019u6_multi_pingpong_pkb", n: 2 * 4, version: "2019 Update 6", bwUnit: "MB/s",
		tests: []string{"PingPong"}, labels: map[string]string{"ranks": "2", "groups": "2", "mode": "multi"},
		rows: []tableRow{
			{"PingPong", "1024", "100000", map[string]float64{"latency_min": 56.92, "latency_max": 61.39, "latency": 59.15, "bandwidth": 16.68}},
			{"PingPong", "2048", "100000", map[string]float64{"latency_min": 64.01, "latency_max": 68.79, "latency": 66.40, "bandwidth": 29.77}},
		},
	}, {
		file: "2019u6_reduce_2proc_pkb", n: 2 * 3, version: "2019 Update 6", bwUnit: "MB/s",
		tests: []string{"Reduce"}, labels: map[string]string{"ranks": "2"},
		rows: []tableRow{
			{"Reduce", "1024", "100000", map[string]float64{"latency_min": 5.24, "latency_max": 15.30, "latency": 10.27}},
			{"Reduce", "2048", "100000", map[string]float64{"latency_min": 7.70, "latency_max": 20.51, "latency": 14.11}},
		},
	}, {
		file: "2021.2_allreduce_144proc_intelmpi_oci", n: 3 * 3, version: "2021.2", bwUnit: "MB/s",
		tests: []string{"Allreduce"}, labels: map[string]string{"ranks": "144"},
		rows: []tableRow{
			{"Allreduce", "0", "1000", map[string]float64{"latency_min": 0.03, "latency_max": 0.03, "latency": 0.03}},
			{"Allreduce", "134217728", "1", map[string]float64{"latency_min": 105362.17, "latency_max": 106363.65, "latency": 105716.44}},
			{"Allreduce", "268435456", "1", map[string]float64{"latency_min": 205579.37, "latency_max": 206503.46, "latency": 205992.71}},
		},
	}, {
		file: "2021.2_pingpong_intelmpi_oci", n: 3 * 2, version: "2021.2", bwUnit: "MB/s",
		tests: []string{"PingPong"}, labels: map[string]string{"ranks": "2"},
		rows: []tableRow{
			{"PingPong", "0", "1000", map[string]float64{"latency": 1.60, "bandwidth": 0.00}},
			{"PingPong", "134217728", "1", map[string]float64{"latency": 10935.56, "bandwidth": 12273.51}},
			{"PingPong", "268435456", "1", map[string]float64{"latency": 21864.16, "bandwidth": 12277.42}},
		},
	}, {
		file: "2021.3_pingpong_full_hpcx_azure", n: 24 * 2, version: "2021.3", bwUnit: "MB/s",
		tests: []string{"PingPong"}, labels: map[string]string{"ranks": "2"},
		rows: []tableRow{
			{"PingPong", "0", "1000", map[string]float64{"latency": 2.24, "bandwidth": 0.00}},
			{"PingPong", "1024", "1000", map[string]float64{"latency": 2.94, "bandwidth": 348.49}},
			{"PingPong", "4194304", "10", map[string]float64{"latency": 398.46, "bandwidth": 10526.36}},
		},
	}, {
		file: "mpi1_v4.1_full_2proc_aarch64", version: "4.1", bwUnit: "MiB/s",
		// 24 sizes (22 for the reductions, 1 row for Barrier) times the figures per row.
		n:     24*2*2 + 24*4*2 + 22*3*3 + 24*3*9 + 3,
		tests: fullRunTests, labels: map[string]string{"ranks": "2"},
		rows: []tableRow{
			{"PingPong", "0", "1000", map[string]float64{"latency": 155.82, "bandwidth": 0.00}},
			{"PingPong", "1024", "1000", map[string]float64{"latency": 180.26, "bandwidth": 5.42}},
			{"PingPong", "4194304", "10", map[string]float64{"latency": 36946.39, "bandwidth": 108.26}},
			{"PingPing", "0", "1000", map[string]float64{"latency": 286.75, "bandwidth": 0.00}},
			{"PingPing", "1024", "1000", map[string]float64{"latency": 342.16, "bandwidth": 2.85}},
			{"PingPing", "4194304", "10", map[string]float64{"latency": 51657.70, "bandwidth": 77.43}},
			{"Sendrecv", "0", "1000", map[string]float64{"latency_min": 286.91, "latency_max": 287.17, "latency": 287.04, "bandwidth": 0.00}},
			{"Sendrecv", "1024", "1000", map[string]float64{"latency_min": 342.37, "latency_max": 342.40, "latency": 342.38, "bandwidth": 5.70}},
			{"Sendrecv", "4194304", "10", map[string]float64{"latency_min": 68766.19, "latency_max": 68961.41, "latency": 68863.80, "bandwidth": 116.01}},
			{"Exchange", "0", "1000", map[string]float64{"latency_min": 424.19, "latency_max": 424.21, "latency": 424.20, "bandwidth": 0.00}},
			{"Exchange", "1024", "1000", map[string]float64{"latency_min": 321.38, "latency_max": 322.64, "latency": 322.01, "bandwidth": 12.11}},
			{"Exchange", "4194304", "10", map[string]float64{"latency_min": 120376.99, "latency_max": 120539.31, "latency": 120458.15, "bandwidth": 132.74}},
			{"Allreduce", "0", "1000", map[string]float64{"latency_min": 0.32, "latency_max": 0.34, "latency": 0.33}},
			{"Allreduce", "2048", "1000", map[string]float64{"latency_min": 319.92, "latency_max": 320.21, "latency": 320.06}},
			{"Allreduce", "4194304", "10", map[string]float64{"latency_min": 62191.58, "latency_max": 62228.82, "latency": 62210.20}},
			{"Reduce", "0", "1000", map[string]float64{"latency_min": 0.35, "latency_max": 0.35, "latency": 0.35}},
			{"Reduce", "2048", "1000", map[string]float64{"latency_min": 157.06, "latency_max": 157.36, "latency": 157.21}},
			{"Reduce", "4194304", "10", map[string]float64{"latency_min": 58690.33, "latency_max": 58769.80, "latency": 58730.07}},
			{"Reduce_scatter", "0", "1000", map[string]float64{"latency_min": 0.37, "latency_max": 0.37, "latency": 0.37}},
			{"Reduce_scatter", "2048", "1000", map[string]float64{"latency_min": 352.55, "latency_max": 352.88, "latency": 352.71}},
			{"Reduce_scatter", "4194304", "10", map[string]float64{"latency_min": 36764.50, "latency_max": 36787.82, "latency": 36776.16}},
			{"Allgather", "0", "1000", map[string]float64{"latency_min": 0.31, "latency_max": 0.33, "latency": 0.32}},
			{"Allgather", "1024", "1000", map[string]float64{"latency_min": 343.28, "latency_max": 343.30, "latency": 343.29}},
			{"Allgather", "4194304", "10", map[string]float64{"latency_min": 54373.12, "latency_max": 54381.70, "latency": 54377.41}},
			{"Allgatherv", "0", "1000", map[string]float64{"latency_min": 0.33, "latency_max": 0.37, "latency": 0.35}},
			{"Allgatherv", "1024", "1000", map[string]float64{"latency_min": 270.52, "latency_max": 270.54, "latency": 270.53}},
			{"Allgatherv", "4194304", "10", map[string]float64{"latency_min": 53553.44, "latency_max": 53677.34, "latency": 53615.39}},
			{"Gather", "0", "1000", map[string]float64{"latency_min": 0.33, "latency_max": 0.36, "latency": 0.34}},
			{"Gather", "1024", "1000", map[string]float64{"latency_min": 181.98, "latency_max": 182.29, "latency": 182.13}},
			{"Gather", "4194304", "10", map[string]float64{"latency_min": 38678.65, "latency_max": 38815.14, "latency": 38746.89}},
			{"Gatherv", "0", "1000", map[string]float64{"latency_min": 0.77, "latency_max": 0.77, "latency": 0.77}},
			{"Gatherv", "1024", "1000", map[string]float64{"latency_min": 181.90, "latency_max": 182.18, "latency": 182.04}},
			{"Gatherv", "4194304", "10", map[string]float64{"latency_min": 37949.75, "latency_max": 38343.17, "latency": 38146.46}},
			{"Scatter", "0", "1000", map[string]float64{"latency_min": 0.31, "latency_max": 0.32, "latency": 0.31}},
			{"Scatter", "1024", "1000", map[string]float64{"latency_min": 181.58, "latency_max": 181.89, "latency": 181.73}},
			{"Scatter", "4194304", "10", map[string]float64{"latency_min": 38204.79, "latency_max": 38246.27, "latency": 38225.53}},
			{"Scatterv", "0", "1000", map[string]float64{"latency_min": 0.75, "latency_max": 0.76, "latency": 0.75}},
			{"Scatterv", "1024", "1000", map[string]float64{"latency_min": 181.40, "latency_max": 181.68, "latency": 181.54}},
			{"Scatterv", "4194304", "10", map[string]float64{"latency_min": 38217.64, "latency_max": 38250.35, "latency": 38234.00}},
			{"Alltoall", "0", "1000", map[string]float64{"latency_min": 0.30, "latency_max": 0.30, "latency": 0.30}},
			{"Alltoall", "1024", "1000", map[string]float64{"latency_min": 343.78, "latency_max": 343.78, "latency": 343.78}},
			{"Alltoall", "4194304", "10", map[string]float64{"latency_min": 54037.52, "latency_max": 54120.92, "latency": 54079.22}},
			{"Alltoallv", "0", "1000", map[string]float64{"latency_min": 288.12, "latency_max": 288.35, "latency": 288.23}},
			{"Alltoallv", "1024", "1000", map[string]float64{"latency_min": 344.42, "latency_max": 344.74, "latency": 344.58}},
			{"Alltoallv", "4194304", "10", map[string]float64{"latency_min": 55810.24, "latency_max": 55874.92, "latency": 55842.58}},
			{"Bcast", "0", "1000", map[string]float64{"latency_min": 0.27, "latency_max": 0.27, "latency": 0.27}},
			{"Bcast", "1024", "1000", map[string]float64{"latency_min": 184.02, "latency_max": 184.30, "latency": 184.16}},
			{"Bcast", "4194304", "10", map[string]float64{"latency_min": 46770.33, "latency_max": 46878.98, "latency": 46824.66}},
			{"Barrier", "", "1000", map[string]float64{"latency_min": 287.38, "latency_max": 287.38, "latency": 287.38}},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			samples, err := Parse(fixtures.Read(t, "imb/imb_"+tt.file+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != tt.n {
				t.Errorf("%d samples, want %d", len(samples), tt.n)
			}
			if diff := cmp.Diff(tt.tests, sampleTests(samples)); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
			for _, s := range samples {
				checkSample(t, s, tt.version, tt.bwUnit, tt.labels)
			}
			rows := indexRows(t, samples)
			for _, r := range tt.rows {
				want := map[string]float64{"iterations " + r.reps: 0}
				for k, v := range r.want {
					want[k] = v
				}
				if diff := cmp.Diff(want, rows[[2]string{r.test, r.msgSize}]); diff != "" {
					t.Errorf("%s msg_size=%s (-want +got):\n%s", r.test, r.msgSize, diff)
				}
			}
		})
	}
}

// checkSample checks the unit and the labels every sample must have.
func checkSample(t *testing.T, s results.Sample, version, bwUnit string, labels map[string]string) {
	t.Helper()
	units := map[string]string{"latency": "us", "latency_min": "us", "latency_max": "us",
		"bandwidth": bwUnit, "message_rate": "messages/s", "defects": "1"}
	if s.Unit != units[s.Metric] {
		t.Errorf("%s %s: unit %q, want %q", s.Test, s.Metric, s.Unit, units[s.Metric])
	}
	if s.Labels["tool"] != "imb" || s.Labels["tool_version"] != version {
		t.Errorf("%s %s: labels %v, want tool imb version %s", s.Test, s.Metric, s.Labels, version)
	}
	for k, v := range labels {
		if s.Labels[k] != v {
			t.Errorf("%s %s: label %s=%q, want %q", s.Test, s.Metric, k, s.Labels[k], v)
		}
	}
	if _, ok := s.Labels[results.LabelMsgSize]; ok == (s.Test == "Barrier") {
		t.Errorf("%s %s: labels %v: msg_size for every test but Barrier", s.Test, s.Metric, s.Labels)
	}
}

// bandwidthScale is how many messages of #bytes IMB counts per time unit
// for each benchmark with a Mbytes/sec column (Bench.scale_bw in the IMB
// sources): Sendrecv sends and receives, Exchange does both with two peers.
var bandwidthScale = map[string]float64{"PingPong": 1, "PingPing": 1, "Sendrecv": 2, "Exchange": 4}

// TestParseBandwidthUnit recomputes Mbytes/sec from #bytes and the time it
// is based on (t[usec], or t_max[usec]) in every fixture: the result must
// match the printed figure with the divisor the unit names (10^6 for MB/s,
// 2^20 for MiB/s) and not with the other one (they differ by 4.9%).
func TestParseBandwidthUnit(t *testing.T) {
	files := fixtures.Glob(t, "imb/*.txt")
	if len(files) == 0 {
		t.Fatalf("no IMB fixtures in %s", fixtures.Path(t, "imb"))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			samples, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, row := range rowsOf(samples) {
				if checkBandwidth(t, row) {
					checked++
				}
			}
			t.Logf("%d rows checked", checked)
			if hasMetric(samples, "bandwidth") && checked == 0 {
				t.Error("no bandwidth row large enough to tell the units apart")
			}
		})
	}
}

// rowsOf groups the samples of each table row, in order.
func rowsOf(samples []results.Sample) [][]results.Sample {
	var rows [][]results.Sample
	for i, s := range samples {
		if i > 0 && s.Test == samples[i-1].Test && cmp.Equal(s.Labels, samples[i-1].Labels) {
			rows[len(rows)-1] = append(rows[len(rows)-1], s)
			continue
		}
		rows = append(rows, []results.Sample{s})
	}
	return rows
}

func hasMetric(samples []results.Sample, metric string) bool {
	for _, s := range samples {
		if s.Metric == metric {
			return true
		}
	}
	return false
}

// checkBandwidth checks one row's bandwidth against bytes/time; it
// reports whether the row was large enough (t >= 10 us, >= 10 units) for the
// rounding to two decimals to stay well below the 4.9% between the units.
func checkBandwidth(t *testing.T, row []results.Sample) bool {
	t.Helper()
	m := map[string]results.Sample{}
	for _, s := range row {
		m[s.Metric] = s
	}
	bw, ok := m["bandwidth"]
	if !ok {
		return false
	}
	tm, ok := m["latency_max"] // t_max: what IMB divides by
	if !ok {
		tm = m["latency"]
	}
	scale, ok := bandwidthScale[bw.Test]
	if !ok {
		t.Fatalf("no bandwidth scale known for %s", bw.Test)
	}
	if tm.Value < 10 || bw.Value < 10 {
		return false
	}
	bytes := atof(t, bw.Labels[results.LabelMsgSize])
	divisor := map[string]float64{"MB/s": 1, "MiB/s": 1.048576}[bw.Unit] // bytes/us = 10^6 B/s
	other := map[string]float64{"MB/s": 1.048576, "MiB/s": 1}[bw.Unit]
	if divisor == 0 {
		t.Fatalf("unit %q", bw.Unit)
	}
	want := scale * bytes / tm.Value / divisor
	if rel := math.Abs(want/bw.Value - 1); rel > 0.002 {
		t.Errorf("%s %s B: printed %v %s, bytes/t gives %v (%.2f%% off)", bw.Test, bw.Labels["msg_size"], bw.Value, bw.Unit, want, 100*rel)
	}
	if rel := math.Abs(scale*bytes/tm.Value/other/bw.Value - 1); rel < 0.02 {
		t.Errorf("%s %s B: printed %v also fits the other unit", bw.Test, bw.Labels["msg_size"], bw.Value)
	}
	return true
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := number(s, true)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The inputs below are written as IMB_output.c and IMB_g_info.c print (the
// banner, "# Benchmarking" headers, column headers, right-aligned fields);
// the figures are made up unless a fixture is named.
const (
	banner2021 = "#----------------------------------------------------------------\n" +
		"#    Intel(R) MPI Benchmarks 2021.2, MPI-1 part\n" +
		"#----------------------------------------------------------------\n"
	banner41 = "#------------------------------------------------------------\n" +
		"#    Intel (R) MPI Benchmarks 4.1, MPI-1 part    \n" +
		"#------------------------------------------------------------\n"
	pingPongHeader = "#---------------------------------------------------\n" +
		"# Benchmarking PingPong \n" +
		"# #processes = 2 \n" +
		"#---------------------------------------------------\n" +
		"       #bytes #repetitions      t[usec]   Mbytes/sec\n"
	finalize = "\n\n# All processes entering MPI_Finalize\n\n"
)

// sample builds one expected sample.
func sample(test, metric string, v float64, unit string, labels ...string) results.Sample {
	l := map[string]string{"tool": "imb"}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	return results.Sample{Test: test, Metric: metric, Value: v, Unit: unit, Labels: l}
}

func TestParse(t *testing.T) {
	v21 := []string{"tool_version", "2021.2"}
	with := func(base []string, kv ...string) []string { return append(append([]string{}, base...), kv...) }
	tests := []struct {
		name string
		data string
		want []results.Sample
	}{{
		name: "several benchmarks and process counts, waiting processes, Barrier",
		data: banner2021 +
			"\n# List of Benchmarks to run:\n\n# PingPong\n# Allreduce\n# Barrier\n" +
			pingPongHeader +
			"            0         1000         1.60         0.00\n" +
			"         1024         1000         2.00       512.00\n" +
			"\n#----------------------------------------------------------------\n" +
			"# Benchmarking Allreduce \n# #processes = 2 \n# ( 2 additional processes waiting in MPI_Barrier)\n" +
			"#----------------------------------------------------------------\n" +
			"       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n" +
			"            4         1000         1.00         3.00         2.00\n" +
			"\n#----------------------------------------------------------------\n" +
			"# Benchmarking Allreduce \n# #processes = 4 \n" +
			"#----------------------------------------------------------------\n" +
			"       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n" +
			"            4         1000         4.00         6.00         5.00\n" +
			"\n#---------------------------------------------------\n" +
			"# Benchmarking Barrier \n# #processes = 4 \n" +
			"#---------------------------------------------------\n" +
			" #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n" +
			"         1000         7.00         9.00         8.00\n" +
			finalize,
		want: []results.Sample{
			sample("PingPong", "latency", 1.6, "us", with(v21, "ranks", "2", "msg_size", "0", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 0, "MB/s", with(v21, "ranks", "2", "msg_size", "0", "iterations", "1000")...),
			sample("PingPong", "latency", 2, "us", with(v21, "ranks", "2", "msg_size", "1024", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 512, "MB/s", with(v21, "ranks", "2", "msg_size", "1024", "iterations", "1000")...),
			sample("Allreduce", "latency_min", 1, "us", with(v21, "ranks", "2", "msg_size", "4", "iterations", "1000")...),
			sample("Allreduce", "latency_max", 3, "us", with(v21, "ranks", "2", "msg_size", "4", "iterations", "1000")...),
			sample("Allreduce", "latency", 2, "us", with(v21, "ranks", "2", "msg_size", "4", "iterations", "1000")...),
			sample("Allreduce", "latency_min", 4, "us", with(v21, "ranks", "4", "msg_size", "4", "iterations", "1000")...),
			sample("Allreduce", "latency_max", 6, "us", with(v21, "ranks", "4", "msg_size", "4", "iterations", "1000")...),
			sample("Allreduce", "latency", 5, "us", with(v21, "ranks", "4", "msg_size", "4", "iterations", "1000")...),
			sample("Barrier", "latency_min", 7, "us", with(v21, "ranks", "4", "iterations", "1000")...),
			sample("Barrier", "latency_max", 9, "us", with(v21, "ranks", "4", "iterations", "1000")...),
			sample("Barrier", "latency", 8, "us", with(v21, "ranks", "4", "iterations", "1000")...),
		},
	}, {
		name: "Intel MPI -prepend-rank, CRLF, MPI noise, stderr lines",
		data: strings.ReplaceAll("[0] MPI startup(): Intel(R) MPI Library, Version 2021.3\n"+
			prefixLines("[0] ", banner2021+pingPongHeader+
				"         1024         1000         2.00       512.00\n")+
			"[1] MPI startup(): warning from another rank, inside the table\n"+
			"[0]          2048         1000         3.00       682.67\n"+
			"[0] \n[0] # All processes entering MPI_Finalize\n", "\n", "\r\n"),
		want: []results.Sample{
			sample("PingPong", "latency", 2, "us", with(v21, "ranks", "2", "msg_size", "1024", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 512, "MB/s", with(v21, "ranks", "2", "msg_size", "1024", "iterations", "1000")...),
			sample("PingPong", "latency", 3, "us", with(v21, "ranks", "2", "msg_size", "2048", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 682.67, "MB/s", with(v21, "ranks", "2", "msg_size", "2048", "iterations", "1000")...),
		},
	}, {
		name: "Open MPI --tag-output",
		data: prefixLines("[1,0]<stdout>:", banner2021+pingPongHeader) +
			"[1,1]<stdout>:output of rank 1\n[1,0]<stderr>:a warning of rank 0\n" +
			"[1,0]<stdout>:         1024         1000         2.00       512.00\n" +
			"[1,0]<stdout>:\n",
		want: []results.Sample{
			sample("PingPong", "latency", 2, "us", with(v21, "ranks", "2", "msg_size", "1024", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 512, "MB/s", with(v21, "ranks", "2", "msg_size", "1024", "iterations", "1000")...),
		},
	}, {
		name: "IMB 4.1 Uniband and Biband: bandwidth in MiB/s and message rate",
		data: banner41 +
			"#---------------------------------------------------\n# Benchmarking Uniband \n# #processes = 2 \n" +
			"#---------------------------------------------------\n" +
			"       #bytes #repetitions   Mbytes/sec      Msg/sec\n" +
			"            1         1000         0.52       547943\n" +
			"\n#---------------------------------------------------\n# Benchmarking Biband \n# #processes = 2 \n" +
			"#---------------------------------------------------\n" +
			"       #bytes #repetitions   Mbytes/sec      Msg/sec\n" +
			"            1         1000         0.80       838861\n" + finalize,
		want: []results.Sample{
			sample("Uniband", "bandwidth", 0.52, "MiB/s", "tool_version", "4.1", "ranks", "2", "msg_size", "1", "iterations", "1000"),
			sample("Uniband", "message_rate", 547943, "messages/s", "tool_version", "4.1", "ranks", "2", "msg_size", "1", "iterations", "1000"),
			sample("Biband", "bandwidth", 0.8, "MiB/s", "tool_version", "4.1", "ranks", "2", "msg_size", "1", "iterations", "1000"),
			sample("Biband", "message_rate", 838861, "messages/s", "tool_version", "4.1", "ranks", "2", "msg_size", "1", "iterations", "1000"),
		},
	}, {
		name: "-multi 1: a Group column, a blank line before each size's rows",
		data: banner2021 +
			"#---------------------------------------------------\n# Benchmarking Multi-PingPong \n" +
			"# ( 2 groups of 2 processes each running simultaneous ) \n# Group  0:     0    1 \n#\n# Group  1:     2    3 \n#\n" +
			"#---------------------------------------------------\n" +
			"        Group       #bytes #repetitions      t[usec]   Mbytes/sec\n" +
			"\n            0            0         1000         1.50         0.00\n" +
			"            1            0         1000         1.70         0.00\n" +
			"\n            0         1024         1000         2.00       512.00\n" +
			"            1         1024         1000         4.00       256.00\n" + finalize,
		want: []results.Sample{
			sample("PingPong", "latency", 1.5, "us", with(v21, "mode", "multi", "groups", "2", "ranks", "2", "group", "0", "msg_size", "0", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 0, "MB/s", with(v21, "mode", "multi", "groups", "2", "ranks", "2", "group", "0", "msg_size", "0", "iterations", "1000")...),
			sample("PingPong", "latency", 1.7, "us", with(v21, "mode", "multi", "groups", "2", "ranks", "2", "group", "1", "msg_size", "0", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 0, "MB/s", with(v21, "mode", "multi", "groups", "2", "ranks", "2", "group", "1", "msg_size", "0", "iterations", "1000")...),
			sample("PingPong", "latency", 2, "us", with(v21, "mode", "multi", "groups", "2", "ranks", "2", "group", "0", "msg_size", "1024", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 512, "MB/s", with(v21, "mode", "multi", "groups", "2", "ranks", "2", "group", "0", "msg_size", "1024", "iterations", "1000")...),
			sample("PingPong", "latency", 4, "us", with(v21, "mode", "multi", "groups", "2", "ranks", "2", "group", "1", "msg_size", "1024", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 256, "MB/s", with(v21, "mode", "multi", "groups", "2", "ranks", "2", "group", "1", "msg_size", "1024", "iterations", "1000")...),
		},
	}, {
		name: "-DCHECK defects column, failed sizes left out",
		data: banner2021 +
			"#----------------------------------------------------------------\n# Benchmarking Bcast \n# #processes = 2 \n" +
			"#----------------------------------------------------------------\n" +
			"       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]      defects\n" +
			"            1         1000         1.00         3.00         2.00         0.00\n" +
			"   1073741824 out-of-mem.; needed X=   4.295 GB; use flag \"-mem X\" or MAX_MEM_USAGE>=X (IMB_mem_info.h)\n" +
			"   2147483647 int-overflow.; The production rank*size caused int overflow for given sample\n" +
			finalize,
		want: []results.Sample{
			sample("Bcast", "latency_min", 1, "us", with(v21, "ranks", "2", "msg_size", "1", "iterations", "1000")...),
			sample("Bcast", "latency_max", 3, "us", with(v21, "ranks", "2", "msg_size", "1", "iterations", "1000")...),
			sample("Bcast", "latency", 2, "us", with(v21, "ranks", "2", "msg_size", "1", "iterations", "1000")...),
			sample("Bcast", "defects", 0, "1", with(v21, "ranks", "2", "msg_size", "1", "iterations", "1000")...),
		},
	}, {
		name: "a second banner switches the version and unit; trailing harness noise",
		data: banner41 + pingPongHeader + "         1024         1000         2.00       488.28\n" + finalize +
			banner2021 + pingPongHeader + "         1024         1000         2.00       512.00\n" + finalize +
			"START OF JOBSPEC\n{\"resources\": [1, 2]}\n",
		want: []results.Sample{
			sample("PingPong", "latency", 2, "us", "tool_version", "4.1", "ranks", "2", "msg_size", "1024", "iterations", "1000"),
			sample("PingPong", "bandwidth", 488.28, "MiB/s", "tool_version", "4.1", "ranks", "2", "msg_size", "1024", "iterations", "1000"),
			sample("PingPong", "latency", 2, "us", with(v21, "ranks", "2", "msg_size", "1024", "iterations", "1000")...),
			sample("PingPong", "bandwidth", 512, "MB/s", with(v21, "ranks", "2", "msg_size", "1024", "iterations", "1000")...),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// prefixLines puts prefix before every line of s.
func prefixLines(prefix, s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString(prefix + line)
	}
	return b.String()
}

func TestVersionUnit(t *testing.T) {
	tests := []struct {
		banner, version, unit string
	}{
		{"#    Intel (R) MPI Benchmark Suite V3.2.4, MPI-1 part    ", "3.2.4", "MiB/s"},
		{"#    Intel (R) MPI Benchmarks 4.0 Update 2, MPI-1 part    ", "4.0 Update 2", "MiB/s"},
		{"#    Intel (R) MPI Benchmarks 4.1, MPI-1 part    ", "4.1", "MiB/s"},
		{"#    Intel (R) MPI Benchmarks 4.1 Update 1, MPI-1 part    ", "4.1 Update 1", "MiB/s"},
		{"#    Intel (R) MPI Benchmarks 2017, MPI-1 part    ", "2017", "MB/s"},
		{"#    Intel (R) MPI Benchmarks 2017 update 2, MPI-1 part    ", "2017 Update 2", "MB/s"},
		{"#    Intel (R) MPI Benchmarks 2018 Update 1, MPI-1 part    ", "2018 Update 1", "MB/s"},
		{"#    Intel(R) MPI Benchmarks 2019 Update 6, MPI-1 part", "2019 Update 6", "MB/s"},
		{"#    Intel(R) MPI Benchmarks 2021.2, MPI-1 part", "2021.2", "MB/s"},
		{"#    Intel(R) MPI Benchmarks 2021.7, MPI-1 part (GPU)", "2021.7", "MB/s"},
	}
	for _, tt := range tests {
		var p parser
		if err := p.banner(strings.TrimSpace(tt.banner)); err != nil {
			t.Errorf("%q: %v", tt.banner, err)
			continue
		}
		if p.version != tt.version || p.bwUnit != tt.unit {
			t.Errorf("%q: version %q unit %q, want %q %q", tt.banner, p.version, p.bwUnit, tt.version, tt.unit)
		}
	}
}

func TestParseErrors(t *testing.T) {
	row := "         1024         1000         2.00       512.00\n"
	tests := []struct {
		name   string
		data   string
		want   string // in the error message
		wantIs error
	}{
		{name: "empty", data: "", wantIs: errNotIMBOutput},
		{name: "OSU output", data: "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n0                       1.63\n",
			want: "not IMB output", wantIs: errNotIMBOutput},
		{name: "rows without any header", data: row + row, wantIs: errNotIMBOutput},
		{name: "banner only", data: banner2021 + finalize, wantIs: results.ErrNoSamples},
		{name: "unknown banner format", data: "#    Intel(R) MPI Benchmarks for everyone\n" + pingPongHeader + row,
			want: `line 1: unrecognized IMB banner`},
		{name: "unknown version format", data: "#    Intel(R) MPI Benchmarks 2021-beta, MPI-1 part\n",
			want: `line 1: unknown IMB version format "2021-beta"`},
		{name: "unknown version number", data: "#    Intel(R) MPI Benchmarks 5.0, MPI-1 part\n",
			want: `line 1: unknown IMB version "5.0"`},
		{name: "IMB-EXT", data: "#    Intel(R) MPI Benchmarks 2021.2, MPI-2 part\n",
			want: "IMB MPI-2 part output is not supported"},
		{name: "no banner", data: pingPongHeader + row,
			want: "line 2: IMB benchmark PingPong before any \"Intel(R) MPI Benchmarks\" banner"},
		{name: "row with a missing field", data: banner2021 + pingPongHeader + row + "         2048         1000         2.00\n",
			want: `line 10: malformed IMB PingPong row: 3 fields, want 4: "2048         1000         2.00"`},
		{name: "noise inside a table", data: banner2021 + pingPongHeader + row + "MPI startup(): warning\n" + row,
			want: `line 10: malformed IMB PingPong row: 3 fields, want 4: "MPI startup(): warning"`},
		{name: "NaN", data: banner2021 + pingPongHeader + "         1024         1000         -nan       512.00\n",
			want: `line 9: malformed IMB PingPong row "1024         1000         -nan       512.00": "-nan" is not a non-negative finite number`},
		{name: "nan", data: banner2021 + pingPongHeader + "         1024         1000          nan          nan\n",
			want: `"nan" is not a non-negative finite number`},
		{name: "Inf", data: banner2021 + pingPongHeader + "         1024         1000         2.00          inf\n",
			want: `"inf" is not a non-negative finite number`},
		{name: "overflowing figure", data: banner2021 + pingPongHeader + "         1024         1000         2.00   " + strings.Repeat("9", 400) + ".00\n",
			want: "is out of range"},
		{name: "negative", data: banner2021 + pingPongHeader + "         1024         1000        -2.00       512.00\n",
			want: `"-2.00" is not a non-negative finite number`},
		{name: "fractional bytes", data: banner2021 + pingPongHeader + "       1024.5         1000         2.00       512.00\n",
			want: `"1024.5" is not a count`},
		{name: "unknown column", data: banner2021 + "# Benchmarking Ibcast\n# #processes = 2\n" +
			"       #bytes #repetitions t_ovrl[usec] t_pure[usec]  t_CPU[usec]   overlap[%]\n",
			want: `line 6: unknown IMB column "t_ovrl[usec]"`},
		{name: "duplicate column", data: banner2021 + "# Benchmarking PingPong\n       #bytes #repetitions      t[usec]      t[usec]\n",
			want: `line 5: IMB column "t[usec]" appears twice`},
		{name: "truncated after the column header", data: banner2021 + pingPongHeader,
			want: "line 5: IMB benchmark PingPong has a column header but no rows"},
		{name: "blank line right after the column header", data: banner2021 + pingPongHeader + "\n" + row,
			want: "line 5: IMB benchmark PingPong has a column header but no rows"},
		{name: "truncated after the benchmark header", data: banner2021 + "#----\n# Benchmarking Allreduce \n# #processes = 2 \n",
			want: "line 5: IMB benchmark Allreduce has no results table"},
		{name: "next benchmark before a table", data: banner2021 + "# Benchmarking Allreduce\n" + pingPongHeader + row,
			want: "line 4: IMB benchmark Allreduce has no results table"},
		{name: "every size failed", data: banner2021 + pingPongHeader +
			"   1073741824 out-of-mem.; needed X=   4.295 GB; use flag \"-mem X\" or MAX_MEM_USAGE>=X (IMB_mem_info.h)\n",
			want: "line 5: IMB benchmark PingPong: every one of its 1 sizes failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.data))
			if err == nil {
				t.Fatalf("no error; samples %+v", got)
			}
			if got != nil {
				t.Errorf("samples with the error: %+v", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v, want %v", err, tt.wantIs)
			}
		})
	}
}

// log1000 builds a 1,000-line IMB log from the 4.1 full-run fixture: its
// banner and header, then its benchmark blocks repeated.
func log1000(tb testing.TB) []byte {
	tb.Helper()
	data := string(fixtures.Read(tb, "imb/imb_mpi1_v4.1_full_2proc_aarch64.txt"))
	start := strings.Index(data, "#---------------------------------------------------\n# Benchmarking PingPong")
	end := strings.Index(data, "\n\n# All processes entering MPI_Finalize")
	if start < 0 || end < 0 {
		tb.Fatal("fixture layout changed")
	}
	lines := strings.SplitAfter(data[:start], "\n")
	lines = lines[:len(lines)-1]
	blocks := strings.SplitAfter(data[start:end+1], "\n")
	blocks = blocks[:len(blocks)-1]
	for i := 0; len(lines) < 1000-2; i++ {
		lines = append(lines, blocks[i%len(blocks)])
	}
	lines = append(lines, "\n", "# All processes entering MPI_Finalize\n")
	return []byte(strings.Join(lines, ""))
}

func BenchmarkParse1000Lines(b *testing.B) {
	data := log1000(b)
	if n := strings.Count(string(data), "\n"); n != 1000 {
		b.Fatalf("%d lines", n)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time of the process (GC included) per parse: unlike ns/op it does
	// not grow when other processes compete for the CPUs.
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user plus system CPU time of this process.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
