package fio

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

// readInput reads a file of testdata/, or of the shared fixtures when the
// name starts with "fixtures/".
func readInput(tb testing.TB, name string) []byte {
	tb.Helper()
	if rest, ok := strings.CutPrefix(name, "fixtures/"); ok {
		return fixtures.Read(tb, rest)
	}
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// byMetric indexes the samples of one test by metric.
func byMetric(samples []results.Sample, test string) map[string]results.Sample {
	m := map[string]results.Sample{}
	for _, s := range samples {
		if s.Test == test {
			m[s.Metric] = s
		}
	}
	return m
}

const mib = 1 << 20

var approx = cmpopts.EquateApprox(1e-12, 0)

func TestParseJSON(t *testing.T) {
	// Every value below was read off the file: bandwidth from bw_bytes (or
	// bw in KiB/s), latencies from clat_ns/lat_ns in ns or clat/lat in usec.
	tests := []struct {
		file   string
		test   string // job checked
		n      int    // samples over all jobs
		want   map[string]float64
		absent []string
		labels map[string]string
		time   int64
	}{{
		file: "fixtures/fio/fio3.33_randread_4k_qd32_nj1_nvme.json",
		test: "FIOJOB", n: 9, time: 1687933704,
		want: map[string]float64{
			"read_iops": 125957.515106, "read_bw": 515921981.0 / mib,
			"read_clat_mean": 251015.940240 / 1000, "read_clat_p50": 214.016, "read_clat_p90": 460.8,
			"read_clat_p99": 659.456, "read_clat_p99.9": 823.296, "read_lat_mean": 253253.449221 / 1000,
			"read_runtime": 15888,
		},
		absent: []string{"write_iops", "trim_iops"},
		labels: map[string]string{"tool": "fio", "tool_version": "3.33", "rw": "randread", "block_size": "4k",
			"io_depth": "32", "num_jobs": "1", "ioengine": "io_uring", "direct": "1"},
	}, {
		file: "fixtures/fio/fio3.33_randrw65_4k_qd16_nj1_nvme.json",
		test: "FIOJOB", n: 18, time: 1687939953,
		want: map[string]float64{
			"read_iops": 61935.312921, "read_bw": 253687041.0 / mib, "read_clat_p99": 1531.904,
			"write_iops": 33373.149394, "write_bw": 136696419.0 / mib, "write_clat_mean": 17242.253360 / 1000,
			"write_clat_p99": 40.192, "write_clat_p99.9": 51.968, "write_lat_mean": 21057.896932 / 1000,
			"write_runtime": 11888,
		},
	}, {
		// numjobs=8 without group_reporting: 8 entries named FIOJOB.
		file: "fixtures/fio/fio3.33_randwrite_4k_qd8_numjobs8_nvme.json",
		test: "FIOJOB", n: 5, time: 1687886130,
		want: map[string]float64{
			"write_iops": 38483.991933 + 38473.925435 + 38474.225430 + 38475.858736 +
				38484.625256 + 38476.308728 + 38479.242013 + 38477.158714,
			"write_bw": (157630430.0 + 157589198 + 157590427 + 157597117 + 157633025 + 157598960 +
				157610975 + 157602442) / mib,
			"write_clat_mean": (204269.840584*2309078 + 204257.553722*2308474 + 204261.768741*2308492 +
				204322.131948*2308590 + 204236.098836*2309116 + 204336.917749*2308617 +
				204311.715918*2308793 + 204397.379851*2308668) /
				(2309078 + 2308474 + 2308492 + 2308590 + 2309116 + 2308617 + 2308793 + 2308668) / 1000,
			"write_runtime": 60001,
		},
		absent: []string{"write_clat_p50", "write_clat_p90", "write_clat_p99", "write_clat_p99.9"},
		labels: map[string]string{"tool": "fio", "tool_version": "3.33", "rw": "randwrite", "block_size": "4k",
			"io_depth": "8", "num_jobs": "8", "ioengine": "io_uring", "direct": "1", "entries": "8"},
	}, {
		// gtod_reduce=1: the latency blocks are zeros with N=0 and no percentiles.
		file: "fixtures/fio/fio3.28_randrw_256k_gtod_reduce_flux_gke.json",
		test: "test", n: 6, time: 1745968978,
		want: map[string]float64{
			"read_iops": 5.684605, "read_bw": 1490185.0 / mib, "read_runtime": 34655,
			"write_iops": 5.857741, "write_bw": 1535571.0 / mib,
		},
		absent: []string{"read_clat_mean", "read_lat_mean", "read_clat_p99", "write_clat_mean", "write_lat_mean"},
		// direct comes from "global options".
		labels: map[string]string{"tool": "fio", "tool_version": "3.28", "rw": "randrw", "block_size": "256k", "direct": "1"},
	}, {
		// fio 3.1: bw in KiB/s only, no N; duplicate "0.00" percentile keys.
		file: "fixtures/fio/fio3.1_randread_4k_qd16_nj1_sata_dup0.00keys.json",
		test: "random-read", n: 9, time: 1564909670,
		want: map[string]float64{
			"read_iops": 47422.542958, "read_bw": 189690.0 / 1024, "read_clat_mean": 331395.790521 / 1000,
			"read_clat_p50": 325.632, "read_clat_p99": 464.896, "read_clat_p99.9": 749.568,
			"read_lat_mean": 336110.420137 / 1000, "read_runtime": 60001,
		},
	}, {
		// fio 2.17: usec under clat/lat, two groups, options from both sections.
		file: "fixtures/fio/fio2.17_legacy_usec_randread_randwrite_2groups_pkb.json",
		test: "rand_16k_write_100%-io-depth-1-num-jobs-2", n: 18, time: 1506559552,
		want: map[string]float64{
			"write_iops": 2457.017193, "write_bw": 39312.0 / 1024, "write_clat_mean": 800.193694,
			"write_clat_p50": 548, "write_clat_p90": 1784, "write_clat_p99": 2384, "write_clat_p99.9": 5728,
			"write_lat_mean": 810.977136, "write_runtime": 10004,
		},
		absent: []string{"read_iops"},
		labels: map[string]string{"tool": "fio", "tool_version": "2.17", "rw": "randwrite", "block_size": "16k",
			"io_depth": "1", "num_jobs": "2", "ioengine": "libaio", "direct": "1"},
	}, {
		file: "fixtures/fio/fio2.17_legacy_usec_randread_randwrite_2groups_pkb.json",
		test: "rand_16k_read_100%-io-depth-1-num-jobs-2", n: 18, time: 1506559552,
		want: map[string]float64{"read_iops": 8086.673998, "read_bw": 129386.0 / 1024, "read_clat_p99": 1352,
			"read_clat_mean": 238.357679, "read_lat_mean": 245.531122},
	}, {
		// json+ from macOS: options only in "global options", bins ignored.
		file: "fixtures/fio/fio3.39_jsonplus_randwrite_1k_qd8_posixaio_macos.json",
		test: "/Users/alexander/CrystalDiskMark/CrystalDiskMark195681fd01a/CrystalDiskMark195681fd01a.tmp",
		n:    9, time: 1741208676,
		want: map[string]float64{
			"write_iops": 19621.556886, "write_bw": 20092474.0 / mib, "write_clat_mean": 406584.472656 / 1000,
			"write_clat_p50": 189.44, "write_clat_p99": 3489.792, "write_clat_p99.9": 4816.896, "write_runtime": 835,
		},
		labels: map[string]string{"tool": "fio", "tool_version": "3.39", "rw": "randwrite", "block_size": "1K",
			"io_depth": "8", "num_jobs": "1", "ioengine": "posixaio", "direct": "1"},
	}, {
		file: "fio3.33_randread_4k_qd8_libaio.json",
		test: "randread", n: 9, time: 1795294849,
		want: map[string]float64{
			"read_iops": 129621.378621, "read_bw": 530929166.0 / mib, "read_clat_p99": 116.224,
			"read_clat_p99.9": 1368.064, "read_lat_mean": 61505.189671 / 1000,
		},
	}, {
		file: "fio3.33_jsonplus_randwrite_4k_qd4_libaio.json",
		test: "randwrite-jsonplus", n: 9, time: 1795294857,
		want: map[string]float64{
			"write_iops": 146678.963111, "write_bw": 600797032.0 / mib, "write_clat_mean": 25387.922954 / 1000,
			"write_clat_p50": 17.024, "write_clat_p90": 29.568, "write_clat_p99": 39.68, "write_clat_p99.9": 2408.448,
			"write_runtime": 1003,
		},
	}, {
		file: "fio3.33_randread_4k_qd4_numjobs2_nogroup.json",
		test: "randread-nj2", n: 5, time: 1795294858,
		want: map[string]float64{
			"read_iops":      66082.917083 + 62886.113886,
			"read_bw":        (270675628.0 + 257581522) / mib,
			"read_clat_mean": (58110.925033*66149 + 60412.689654*62949) / (66149 + 62949) / 1000,
			"read_lat_mean":  (60307.901737*66149 + 63385.279305*62949) / (66149 + 62949) / 1000,
			"read_runtime":   1001,
		},
		absent: []string{"read_clat_p50", "read_clat_p99"},
		labels: map[string]string{"tool": "fio", "tool_version": "3.33", "rw": "randread", "block_size": "4k",
			"io_depth": "4", "num_jobs": "2", "ioengine": "libaio", "direct": "1", "entries": "2"},
	}, {
		file: "fio3.33_randrw70_8k_qd8_libaio.json",
		test: "randrw70", n: 18, time: 1795294859,
		want: map[string]float64{
			"read_iops": 81175.824176, "read_bw": 664992351.0 / mib, "read_clat_p90": 66.048,
			"write_iops": 34691.308691, "write_bw": 284191200.0 / mib, "write_clat_p99": 120.32,
			"write_lat_mean": 75458.570955 / 1000,
		},
	}, {
		file: "fio3.33_randrw_64k_gtod_reduce.json",
		test: "gtod", n: 6, time: 1795294861,
		want: map[string]float64{
			"read_iops": 19642.357642, "read_bw": 1287281550.0 / mib, "write_iops": 19656.686627,
			"write_runtime": 1002,
		},
		absent: []string{"read_clat_mean", "read_lat_mean", "read_clat_p50", "write_clat_mean", "write_lat_mean"},
	}, {
		// "note: both iodepth >= 1 and synchronous I/O engine are selected" first.
		file: "fio3.33_read_128k_psync_note_before.json",
		test: "syncwarn", n: 9, time: 1795294862,
		want: map[string]float64{"read_iops": 31309.69031, "read_bw": 4103823728.0 / mib, "read_clat_p99": 1269.76},
	}, {
		// --status-interval=1: four objects, the last one is the final result.
		file: "fio3.33_status_interval_4objects.json",
		test: "si", n: 9, time: 1795294869,
		want: map[string]float64{"read_iops": 54519.826724, "read_runtime": 3001, "read_clat_p99.9": 362.496},
	}, {
		// --output-format=json,normal: the job line before, the text report after.
		file: "fio3.33_json_normal_text_around.txt",
		test: "jn", n: 9, time: 1795294870,
		want: map[string]float64{"read_iops": 37588.411588, "read_bw": 153962133.0 / mib, "read_clat_p50": 17.792},
	}, {
		file: "fio3.33_100jobs.json",
		test: "job99", n: 100 * 9, time: 1795294874,
		want: map[string]float64{"write_iops": 5120, "write_bw": 20971520.0 / mib, "write_runtime": 50,
			"write_clat_p99": 5.408},
		labels: map[string]string{"tool": "fio", "tool_version": "3.33", "rw": "randwrite", "block_size": "4k",
			"ioengine": "psync"},
	}}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file)+"/"+filepath.Base(tt.test), func(t *testing.T) {
			samples, err := ParseJSON(readInput(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != tt.n {
				t.Errorf("got %d samples, want %d", len(samples), tt.n)
			}
			got := byMetric(samples, tt.test)
			values := map[string]float64{}
			for metric := range tt.want {
				if s, ok := got[metric]; ok {
					values[metric] = s.Value
				}
			}
			if diff := cmp.Diff(tt.want, values, approx); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			for _, metric := range tt.absent {
				if s, ok := got[metric]; ok {
					t.Errorf("%s = %v, want no such sample", metric, s.Value)
				}
			}
			for metric, s := range got {
				if tt.labels != nil {
					if diff := cmp.Diff(tt.labels, s.Labels); diff != "" {
						t.Errorf("%s labels (-want +got):\n%s", metric, diff)
					}
				}
				if want := time.Unix(tt.time, 0).UTC(); !s.Timestamp.Equal(want) {
					t.Errorf("%s timestamp %v, want %v", metric, s.Timestamp, want)
				}
			}
		})
	}
}

// TestParseJSONWhole checks every field of every sample of one real output.
func TestParseJSONWhole(t *testing.T) {
	samples, err := ParseJSON(readInput(t, "fio3.33_randread_4k_qd8_libaio.json"))
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"tool": "fio", "tool_version": "3.33", "rw": "randread", "block_size": "4k",
		"io_depth": "8", "ioengine": "libaio", "direct": "1"}
	ts := time.Unix(1795294849, 0).UTC()
	sample := func(metric, unit string, v float64) results.Sample {
		return results.Sample{Test: "randread", Metric: metric, Value: v, Unit: unit, Labels: labels, Timestamp: ts}
	}
	want := []results.Sample{
		sample("read_iops", "IOPS", 129621.378621),
		sample("read_bw", "MiB/s", 530929166.0/mib),
		sample("read_clat_mean", "us", 59966.491357/1000),
		sample("read_clat_p50", "us", 53.504),
		sample("read_clat_p90", "us", 59.648),
		sample("read_clat_p99", "us", 116.224),
		sample("read_clat_p99.9", "us", 1368.064),
		sample("read_lat_mean", "us", 61505.189671/1000),
		sample("read_runtime", "ms", 1001),
	}
	if diff := cmp.Diff(want, samples, approx); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
	samples[0].Labels["mutated"] = "yes"
	if _, shared := samples[1].Labels["mutated"]; shared {
		t.Error("samples share one labels map")
	}
}

func TestParseJSONJobError(t *testing.T) {
	// A real run: job full-write wrote to /dev/full and fio set its error to
	// 28 (ENOSPC); fio's own complaints precede the JSON.
	samples, err := ParseJSON(readInput(t, "fio3.33_error28_dev_full.json"))
	var jobErr *JobError
	if !errors.As(err, &jobErr) {
		t.Fatalf("error %v, want a *JobError", err)
	}
	if diff := cmp.Diff(&JobError{Job: "full-write", Errno: 28}, jobErr); diff != "" {
		t.Errorf("JobError (-want +got):\n%s", diff)
	}
	if want := `fio job "full-write": error 28 (no space left on device)`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if len(samples) != 9 || len(byMetric(samples, "full-write")) != 0 {
		t.Errorf("got %d samples, %d of full-write; want the 9 of good-read only",
			len(samples), len(byMetric(samples, "full-write")))
	}
	if got := byMetric(samples, "good-read")["read_iops"].Value; got != 52271.728272 {
		t.Errorf("good-read read_iops = %v", got)
	}
}

func TestJobErrorMessage(t *testing.T) {
	for _, tt := range []struct {
		err  JobError
		want string
	}{
		{JobError{"randread", 5}, `fio job "randread": error 5 (input/output error)`},
		{JobError{"x", 100000}, `fio job "x": error 100000`},
		{JobError{"x", -1}, `fio job "x": error -1`},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestParseJSONFailures(t *testing.T) {
	full := readInput(t, "fio3.33_randrw70_8k_qd8_libaio.json")
	half := full[:len(full)/2]
	tests := []struct {
		name    string
		data    []byte
		wantMsg string // substring of the error
		wantIs  error
	}{
		{name: "empty", data: nil, wantIs: results.ErrNoSamples},
		{name: "blank", data: []byte(" \n\t\n"), wantIs: results.ErrNoSamples},
		{name: "truncated half", data: half, wantMsg: "fio JSON output is truncated at byte 3665"},
		{name: "garbage", data: []byte("fio: failed parsing rw=bogus\n"),
			wantMsg: `no fio JSON object found (the output starts with "fio: failed parsing rw=bogus")`},
		{name: "syntax", data: []byte(`{"fio version": "fio-3.33", "jobs": [}]}`),
			wantMsg: "parsing fio JSON at byte 38: invalid character '}'"},
		{name: "wrong type", data: []byte(`{"fio version": "fio-3.33", "timestamp": "now", "jobs": []}`),
			wantMsg: "parsing fio JSON at byte"},
		{name: "no jobs", data: []byte(`{"fio version": "fio-3.33", "jobs": []}`), wantIs: results.ErrNoSamples},
		{name: "no I/O", data: []byte(`{"fio version": "fio-3.33", "jobs": [{"jobname": "idle", "read": {"iops": 0}}]}`),
			wantIs: results.ErrNoSamples},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples, err := ParseJSON(tt.data)
			if err == nil {
				t.Fatalf("no error; %d samples", len(samples))
			}
			if samples != nil {
				t.Errorf("got %d samples with the error", len(samples))
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %q, want %q", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

// TestParseJSONSameNameTwoGroups: two job sections named alike but separated by
// stonewall ran one after the other, so they are not combined.
func TestParseJSONSameNameTwoGroups(t *testing.T) {
	data := []byte(`{"fio version": "fio-3.33", "jobs": [
		{"jobname": "j", "groupid": 0, "read": {"iops": 10, "total_ios": 100, "runtime": 10, "bw_bytes": 1048576}},
		{"jobname": "j", "groupid": 1, "read": {"iops": 30, "total_ios": 300, "runtime": 10, "bw_bytes": 3145728}}]}`)
	samples, err := ParseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var iops []float64
	for _, s := range samples {
		if s.Metric == "read_iops" {
			iops = append(iops, s.Value)
			if s.Labels["group"] == "" || s.Labels["entries"] != "" {
				t.Errorf("labels %v, want group and no entries", s.Labels)
			}
		}
	}
	if diff := cmp.Diff([]float64{10, 30}, iops); diff != "" {
		t.Errorf("read_iops (-want +got):\n%s", diff)
	}
}

// BenchmarkParseJSON100Jobs parses a real fio 3.33 output of 100 jobs (584 KB).
func BenchmarkParseJSON100Jobs(b *testing.B) {
	data := readInput(b, "fio3.33_100jobs.json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		samples, err := ParseJSON(data)
		if err != nil || len(samples) != 900 {
			b.Fatalf("%d samples, error %v", len(samples), err)
		}
	}
}

// TestParseJSONKeysSorted: fio's JSON after `jq -S` (keys sorted, "fio
// version" no longer first) gives the same samples as fio's own order.
func TestParseJSONKeysSorted(t *testing.T) {
	data := readInput(t, "fio3.33_randread_4k_qd8_libaio.json")
	want, err := ParseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	sorted, err := json.MarshalIndent(doc, "", "  ") // encoding/json sorts map keys
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(bytes.TrimSpace(sorted), []byte(`{`+"\n"+`  "fio version"`)) {
		t.Fatal("the sorted document still starts with fio version: the test tests nothing")
	}
	got, err := ParseJSON(sorted)
	if err != nil {
		t.Fatalf("sorted keys: %v", err)
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("samples (-fio's order +sorted):\n%s", diff)
	}
	if _, err := ParseJSON([]byte(`{"jobs": []}`)); err == nil || !strings.Contains(err.Error(), "no fio JSON object found") {
		t.Errorf("an object without fio version: %v", err)
	}
}
