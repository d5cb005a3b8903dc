package osu

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/internal/mpi/internal/digits"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

// point is one figure of a table as printed: the row's size, the metric
// and the value.
type point struct {
	size   string
	metric string
	value  float64
}

// pointsByTest reduces samples to their test, size, metric and value.
func pointsByTest(samples []results.Sample) map[string][]point {
	out := map[string][]point{}
	for _, s := range samples {
		out[s.Test] = append(out[s.Test], point{s.Labels[results.LabelMsgSize], s.Metric, s.Value})
	}
	return out
}

// has reports the points of want missing from got.
func has(got []point, want ...point) []point {
	var missing []point
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			missing = append(missing, w)
		}
	}
	return missing
}

func TestParseFixtures(t *testing.T) {
	// Spot checks: the first, a middle and the last row of each table, size
	// and figure as printed; labels are those of the first sample.
	tests := []struct {
		file    string
		test    string
		samples int
		labels  map[string]string
		points  []point
	}{{
		file: "osu_latency_v5.8_gke_flux.txt", test: "osu_latency", samples: 24,
		labels: map[string]string{"tool": "osu", "tool_version": "5.8", "msg_size": "0"},
		points: []point{{"0", "latency", 32.29}, {"2048", "latency", 40.67}, {"4194304", "latency", 2399.94}},
	}, {
		file: "osu_latency_v7.5_validation_cscs_mpich.txt", test: "osu_latency", samples: 23,
		labels: map[string]string{"tool": "osu", "tool_version": "7.5", "msg_size": "1",
			"datatype": "MPI_CHAR", "validation": "pass"},
		points: []point{{"1", "latency", 3.00}, {"2048", "latency", 4.57}, {"4194304", "latency", 181.46}},
	}, {
		file: "osu_bw_v5.8_azure_aks.txt", test: "osu_bw", samples: 23,
		labels: map[string]string{"tool": "osu", "tool_version": "5.8", "msg_size": "1"},
		points: []point{{"1", "bandwidth", 3.88}, {"2048", "bandwidth", 5895.08}, {"4194304", "bandwidth", 12019.84}},
	}, {
		file: "osu_bw_cuda_v5.8_eks_gpu.txt", test: "osu_bw", samples: 23,
		labels: map[string]string{"tool": "osu", "tool_version": "5.8", "msg_size": "1",
			"accelerator": "cuda", "src_buffer": "host", "dst_buffer": "host"},
		points: []point{{"1", "bandwidth", 0.62}, {"2048", "bandwidth", 1201.30}, {"4194304", "bandwidth", 6454.75}},
	}, {
		file: "osu_bw_v7.5_validation_cscs_ompi.txt", test: "osu_bw", samples: 23,
		labels: map[string]string{"tool": "osu", "tool_version": "7.5", "msg_size": "1",
			"datatype": "MPI_CHAR", "validation": "pass"},
		points: []point{{"1", "bandwidth", 0.95}, {"2048", "bandwidth", 1943.99}, {"4194304", "bandwidth", 23982.18}},
	}, {
		file: "osu_bibw_v5.7.1_pcluster_p5_openmpi.txt", test: "osu_bibw", samples: 23,
		labels: map[string]string{"tool": "osu", "tool_version": "5.7.1", "msg_size": "1"},
		points: []point{{"1", "bibandwidth", 1.52}, {"2048", "bibandwidth", 2873.96}, {"4194304", "bibandwidth", 18666.02}},
	}, {
		file: "osu_bibw_v7.5_validation_cscs_mpich.txt", test: "osu_bibw", samples: 23,
		labels: map[string]string{"tool": "osu", "tool_version": "7.5", "msg_size": "1",
			"datatype": "MPI_CHAR", "validation": "pass"},
		points: []point{{"1", "bibandwidth", 1.03}, {"2048", "bibandwidth", 2072.16}, {"4194304", "bibandwidth", 46433.80}},
	}, {
		file: "osu_allreduce_v5.8_gke_32nodes.txt", test: "osu_allreduce", samples: 19,
		labels: map[string]string{"tool": "osu", "tool_version": "5.8", "msg_size": "4"},
		points: []point{{"4", "latency", 1203.22}, {"4096", "latency", 1407.20}, {"1048576", "latency", 5466.13}},
	}, {
		file: "osu_allreduce_v5.7.1_fullstats_impi_debug_pkb.txt", test: "osu_allreduce", samples: 6,
		labels: map[string]string{"tool": "osu", "tool_version": "5.7.1", "msg_size": "4", "iterations": "1000"},
		points: []point{
			{"4", "latency", 46.87}, {"4", "latency_min", 20.65}, {"4", "latency_max", 72.83},
			{"8", "latency", 118.95}, {"8", "latency_min", 101.25}, {"8", "latency_max", 130.89},
		},
	}, {
		file: "osu_allreduce_v7.5_oci_144ranks.txt", test: "osu_allreduce", samples: 27,
		labels: map[string]string{"tool": "osu", "tool_version": "7.5", "msg_size": "4", "datatype": "MPI_INT"},
		points: []point{{"4", "latency", 11.69}, {"65536", "latency", 160.17}, {"268435456", "latency", 496306.98}},
	}, {
		file: "osu_alltoall_v5.7.1_pcluster_c5n_openmpi.txt", test: "osu_alltoall", samples: 19,
		labels: map[string]string{"tool": "osu", "tool_version": "5.7.1", "msg_size": "1"},
		points: []point{{"1", "latency", 359.89}, {"64", "latency", 7019.90}, {"262144", "latency", 925305.12}},
	}, {
		file: "osu_alltoall_v7.5_validation_cscs_ompi.txt", test: "osu_alltoall", samples: 21,
		labels: map[string]string{"tool": "osu", "tool_version": "7.5", "msg_size": "1",
			"datatype": "MPI_CHAR", "validation": "pass"},
		points: []point{{"1", "latency", 12.46}, {"1024", "latency", 13.37}, {"1048576", "latency", 519.85}},
	}}
	files := fixtures.Glob(t, "osu/*")
	checked := map[string]bool{}
	for _, tt := range tests {
		checked[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			got, err := Parse(fixtures.Read(t, "osu/"+tt.file))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(got) != tt.samples {
				t.Errorf("%d samples, want %d", len(got), tt.samples)
			}
			if diff := cmp.Diff(tt.labels, got[0].Labels); diff != "" {
				t.Errorf("labels of the first sample (-want +got):\n%s", diff)
			}
			points := pointsByTest(got)
			if len(points) != 1 {
				t.Errorf("tests %v, want only %s", points, tt.test)
			}
			if missing := has(points[tt.test], tt.points...); len(missing) > 0 {
				t.Errorf("missing %+v", missing)
			}
			first, last := points[tt.test][0], points[tt.test][len(points[tt.test])-1]
			if first != tt.points[0] || last != tt.points[len(tt.points)-1] {
				t.Errorf("first and last %+v %+v, want %+v %+v", first, last, tt.points[0], tt.points[len(tt.points)-1])
			}
			for _, s := range got {
				if s.Unit == "" || s.Labels["tool"] != "osu" {
					t.Errorf("incomplete sample %+v", s)
				}
			}
		})
	}
	for _, f := range files {
		if !checked[filepath.Base(f)] {
			t.Errorf("fixture %s has no spot checks", filepath.Base(f))
		}
	}
}

// sample is a compact expected sample; labels tool=osu and
// tool_version=7.5 are implied.
func sample(test, metric string, v float64, unit string, labels ...string) results.Sample {
	l := map[string]string{"tool": "osu", "tool_version": "7.5"}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	return results.Sample{Test: test, Metric: metric, Value: v, Unit: unit, Labels: l}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []results.Sample
	}{{
		name: "open mpi tag-output, other ranks and stderr interleaved",
		in: "[1,1]<stderr>:Warning: something on rank 1\n" +
			"[1,0]<stdout>:\n" +
			"[1,0]<stdout>:# OSU MPI Latency Test v7.5\n" +
			"[1,0]<stdout>:# Datatype: MPI_CHAR.\n" +
			"[1,0]<stdout>:# Size       Avg Latency(us)\n" +
			"[1,0]<stdout>:1                       3.00\n" +
			"[1,1]<stdout>:12 rank one says hello\n" +
			"[1,0]<stderr>:4 bytes of warnings\n" +
			"3 4 from mpirun itself\n" +
			"[1,0]<stdout>:2                       2.99\n",
		want: []results.Sample{
			sample("osu_latency", "latency", 3.00, "us", "msg_size", "1", "datatype", "MPI_CHAR"),
			sample("osu_latency", "latency", 2.99, "us", "msg_size", "2", "datatype", "MPI_CHAR"),
		},
	}, {
		name: "mpich prepend-rank and srun labels",
		in: "[0] # OSU MPI Bandwidth Test v7.5\n[0] # Size      Bandwidth (MB/s)\n[0] 1   0.95\n" +
			"0: # OSU MPI Bi-Directional Bandwidth Test v7.5\n0: # Size      Bandwidth (MB/s)\n1: 1   9.99\n0: 1   1.03\n",
		want: []results.Sample{
			sample("osu_bw", "bandwidth", 0.95, "MB/s", "msg_size", "1"),
			sample("osu_bibw", "bibandwidth", 1.03, "MB/s", "msg_size", "1"),
		},
	}, {
		name: "several tests in one log, barrier without sizes, launcher noise inside a table",
		in: "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n0    1.50\n" +
			"[host:123] SET UCX_NET_DEVICES=mlx5_0:1\n0.036s: flux-shell[1]: ERROR: oops\n1    1.60\n\n" +
			"some text between runs\n4 8 15 16 23 42\n" +
			"# OSU MPI Barrier Latency Test v5.8\n# Avg Latency(us)\n             12.34\n" +
			"# OSU MPI Allreduce Latency Test v5.8\n# Size       Avg Latency(us)\n4     7.00\n",
		want: []results.Sample{
			sample("osu_latency", "latency", 1.50, "us", "tool_version", "5.8", "msg_size", "0"),
			sample("osu_latency", "latency", 1.60, "us", "tool_version", "5.8", "msg_size", "1"),
			sample("osu_barrier", "latency", 12.34, "us", "tool_version", "5.8"),
			sample("osu_allreduce", "latency", 7.00, "us", "tool_version", "5.8", "msg_size", "4"),
		},
	}, {
		name: "full statistics, validation and tail latencies",
		in: "\n# OSU MPI Allreduce Latency Test v7.5\n# Datatype: MPI_CHAR.\n" +
			"# Size       Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations          Validation" +
			"   P50 Tail Lat(us)   P90 Tail Lat(us)   P99 Tail Lat(us)\n" +
			"4                      46.87               20.65               72.83        1000" +
			"                Pass              40.00              60.00              70.00\n",
		want: []results.Sample{
			sample("osu_allreduce", "latency", 46.87, "us", "msg_size", "4", "datatype", "MPI_CHAR", "iterations", "1000", "validation", "pass"),
			sample("osu_allreduce", "latency_min", 20.65, "us", "msg_size", "4", "datatype", "MPI_CHAR", "iterations", "1000", "validation", "pass"),
			sample("osu_allreduce", "latency_max", 72.83, "us", "msg_size", "4", "datatype", "MPI_CHAR", "iterations", "1000", "validation", "pass"),
			sample("osu_allreduce", "latency_p50", 40, "us", "msg_size", "4", "datatype", "MPI_CHAR", "iterations", "1000", "validation", "pass"),
			sample("osu_allreduce", "latency_p90", 60, "us", "msg_size", "4", "datatype", "MPI_CHAR", "iterations", "1000", "validation", "pass"),
			sample("osu_allreduce", "latency_p99", 70, "us", "msg_size", "4", "datatype", "MPI_CHAR", "iterations", "1000", "validation", "pass"),
		},
	}, {
		name: "several datatypes (-T char,int) reprint the column header",
		in: "# OSU MPI Bandwidth Test v7.5\n# Datatype: MPI_CHAR.\n# Size      Bandwidth (MB/s)   P99 Tail BW(MB/s)\n" +
			"1   0.95   0.90\n# Datatype: MPI_INT.\n# Size      Bandwidth (MB/s)   P99 Tail BW(MB/s)\n4   3.80   3.70\n",
		want: []results.Sample{
			sample("osu_bw", "bandwidth", 0.95, "MB/s", "msg_size", "1", "datatype", "MPI_CHAR"),
			sample("osu_bw", "bandwidth_p99", 0.90, "MB/s", "msg_size", "1", "datatype", "MPI_CHAR"),
			sample("osu_bw", "bandwidth", 3.80, "MB/s", "msg_size", "4", "datatype", "MPI_INT"),
			sample("osu_bw", "bandwidth_p99", 3.70, "MB/s", "msg_size", "4", "datatype", "MPI_INT"),
		},
	}, {
		name: "multiple bandwidth / message rate",
		in: "# OSU MPI Multiple Bandwidth / Message Rate Test v7.5\n# [ pairs: 2 ] [ window size: 64 ]\n" +
			"# Size                  MB/s        Messages/s\n1                       4.21        4210000.00\n",
		want: []results.Sample{
			sample("osu_mbw_mr", "bandwidth", 4.21, "MB/s", "msg_size", "1", "pairs", "2", "window_size", "64"),
			sample("osu_mbw_mr", "message_rate", 4210000, "messages/s", "msg_size", "1", "pairs", "2", "window_size", "64"),
		},
	}, {
		name: "multiple bandwidth / message rate with varied windows (-W)",
		in: "# OSU MPI Multiple Bandwidth / Message Rate Test v5.8\n# [ pairs: 1 ] [ window size: varied ]\n\n" +
			"# Uni-directional Bandwidth (MB/sec)\n#               1           2\n1            0.50        0.90\n\n" +
			"# Message Rate Profile\n#               1           2\n1       500000.00   900000.00\n",
		want: []results.Sample{
			sample("osu_mbw_mr", "bandwidth", 0.5, "MB/s", "tool_version", "5.8", "msg_size", "1", "pairs", "1", "window_size", "1"),
			sample("osu_mbw_mr", "bandwidth", 0.9, "MB/s", "tool_version", "5.8", "msg_size", "1", "pairs", "1", "window_size", "2"),
			sample("osu_mbw_mr", "message_rate", 500000, "messages/s", "tool_version", "5.8", "msg_size", "1", "pairs", "1", "window_size", "1"),
			sample("osu_mbw_mr", "message_rate", 900000, "messages/s", "tool_version", "5.8", "msg_size", "1", "pairs", "1", "window_size", "2"),
		},
	}, {
		name: "multi-pair latency",
		in:   "# OSU MPI Multi Latency Test v5.8\n# Size          Latency (us)\n0                       1.23\n",
		want: []results.Sample{sample("osu_multi_lat", "latency", 1.23, "us", "tool_version", "5.8", "msg_size", "0")},
	}, {
		name: "non-blocking collective",
		in: "# OSU MPI Non-blocking Allreduce Latency Test v7.5\n# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n" +
			"# Datatype: MPI_CHAR.\n# Size           Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)\n" +
			"4                     10.00              5.00              6.00             33.33\n",
		want: []results.Sample{
			sample("osu_iallreduce", "overall_latency", 10, "us", "msg_size", "4", "datatype", "MPI_CHAR"),
			sample("osu_iallreduce", "compute_time", 5, "us", "msg_size", "4", "datatype", "MPI_CHAR"),
			sample("osu_iallreduce", "comm_latency", 6, "us", "msg_size", "4", "datatype", "MPI_CHAR"),
			sample("osu_iallreduce", "overlap", 33.33, "%", "msg_size", "4", "datatype", "MPI_CHAR"),
		},
	}, {
		name: "one-sided on a device, no version in the header",
		in: "# OSU MPI_Put-ROCM Bandwidth Test\n# Window creation: MPI_Win_allocate\n# Synchronization: MPI_Win_flush\n" +
			"# Rank 0 Memory on DEVICE (D) and Rank 1 Memory on HOST (H)\n# Size      Bandwidth (MB/s)\n8   12.50\n",
		want: []results.Sample{{Test: "osu_put_bw", Metric: "bandwidth", Value: 12.5, Unit: "MB/s", Labels: map[string]string{
			"tool": "osu", "msg_size": "8", "accelerator": "rocm", "src_buffer": "device", "dst_buffer": "host",
			"window_creation": "MPI_Win_allocate", "synchronization": "MPI_Win_flush"}}},
	}, {
		name: "derived datatypes, CRLF line ends, OMB 7 all-to-all title without a space",
		in: "# OSU MPI Non-blocking All-to-All Personalized ExchangeLatency Test v7.5.1\r\n" +
			"# Size           Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)       Transmit Size\r\n" +
			"16                    10.00              5.00              6.00             33.33                  64\r\n",
		want: []results.Sample{
			sample("osu_ialltoall", "overall_latency", 10, "us", "tool_version", "7.5.1", "msg_size", "16", "transmit_size", "64"),
			sample("osu_ialltoall", "compute_time", 5, "us", "tool_version", "7.5.1", "msg_size", "16", "transmit_size", "64"),
			sample("osu_ialltoall", "comm_latency", 6, "us", "tool_version", "7.5.1", "msg_size", "16", "transmit_size", "64"),
			sample("osu_ialltoall", "overlap", 33.33, "%", "tool_version", "7.5.1", "msg_size", "16", "transmit_size", "64"),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const lat = "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n"
	tests := []struct {
		name   string
		in     string
		wantIs error
		want   string // a part of the message
	}{
		{name: "empty", in: "", wantIs: results.ErrNoSamples},
		{name: "blank", in: " \n\t\r\n", wantIs: results.ErrNoSamples},
		{name: "not osu", in: "Hello from rank 0\n#bytes #repetitions t[usec]\n", want: `not OSU micro-benchmarks output: no "# OSU ..." header line (the output starts with "Hello from rank 0")`},
		{name: "unknown test", in: "# OSU MPI Frobnicate Test v7.5\n# Size  Latency (us)\n1 2.0\n", want: `line 1: unknown OSU benchmark "MPI Frobnicate Test"`},
		{name: "openshmem is not mpi", in: "# OSU OpenSHMEM Put Test v5.8\n", want: `unknown OSU benchmark "OpenSHMEM Put Test"`},
		{name: "version 8", in: "# OSU MPI Latency Test v8.0\n# Size  Latency (us)\n1 2.0\n", want: `line 1: OSU version 8.0 is not supported: "# OSU MPI Latency Test v8.0" (this parser reads OMB 5.x to 7.x)`},
		{name: "version 4", in: "noise\n# OSU MPI Bandwidth Test v4.4.1\n", want: "line 2: OSU version 4.4.1 is not supported"},
		{name: "header only", in: "# OSU MPI Latency Test v5.8\n", want: "line 1: osu_latency output has a header but no results (truncated output?)"},
		{name: "column header only", in: "x\n" + lat, want: "line 2: osu_latency output has a header but no results"},
		{name: "first test truncated", in: lat + "\n# OSU MPI Bandwidth Test v5.8\n# Size  Bandwidth (MB/s)\n1  3.88\n", want: "line 1: osu_latency output has a header but no results"},
		{name: "truncated row", in: lat + "0   1.50\n1", want: `line 4: malformed osu_latency row: 1 fields, the column header has 2: "1"`},
		{name: "row with extra field", in: lat + "0   1.50   7\n", want: "line 3: malformed osu_latency row: 3 fields"},
		{name: "garbled figure", in: lat + "0   1.5x\n", want: `line 3: osu_latency row "0   1.5x": "1.5x" is not a finite non-negative number`},
		{name: "garbled size", in: lat + "1.5   2.0\n", want: `line 3: osu_latency row "1.5   2.0": "1.5" is not a non-negative integer`},
		{name: "nan", in: lat + "0   nan\n", want: `"nan" is not a finite non-negative number`},
		{name: "inf", in: lat + "0   inf\n", want: `"inf" is not a finite non-negative number`},
		{name: "nan barrier", in: "# OSU MPI Barrier Latency Test v5.8\n# Avg Latency(us)\n     -nan\n", want: `line 3: osu_barrier row "-nan": "-nan" is not a finite non-negative number`},
		{name: "negative", in: lat + "0   -1.50\n", want: `line 3: osu_latency row "0   -1.50": negative figure "-1.50"`},
		{name: "negative size", in: lat + "-2147483648   1.50\n", want: `"-2147483648" is not a non-negative integer`},
		{name: "overflow", in: lat + "0   1" + strings.Repeat("0", 400) + "\n", want: "value out of range"},
		{name: "unknown column", in: "# OSU MPI Latency Test v7.5\n# Size       Avg Latency(us)   P99.9 Tail Lat(us)\n", want: `line 2: unknown OSU column "P99.9 Tail Lat(us)" in "# Size       Avg Latency(us)   P99.9 Tail Lat(us)"`},
		{name: "repeated column", in: "# OSU MPI Latency Test v7.5\n# Size   Latency (us)   Avg Latency(us)\n", want: `line 2: OSU column "Avg Latency(us)" repeated or out of place`},
		{name: "no figures", in: "# OSU MPI Latency Test v7.5\n# Size  Iterations\n", want: "line 2: OSU column header without figures"},
		{name: "validation failed", in: "# OSU MPI Latency Test v7.5\n# Size       Avg Latency(us)        Validation\n1   3.00   Pass\n2   2.99   Fail\n",
			want: `line 4: osu_latency row "2   2.99   Fail": validation failed at message size 2`},
		{name: "validation failed without sizes", in: "# OSU MPI Barrier Latency Test v7.5\n# Avg Latency(us)   Validation\n   3.00   Fail\n",
			want: "line 3: osu_barrier row \"3.00   Fail\": validation failed"},
		{name: "validation status", in: "# OSU MPI Latency Test v7.5\n# Size       Avg Latency(us)        Validation\n1   3.00   Maybe\n",
			want: `validation status "Maybe" is neither Pass nor Fail`},
		{name: "validation error line", in: lat + "1   3.00\nDATA VALIDATION ERROR: ./osu_latency exited with status 1 on message size 2.\n",
			want: `line 4: osu_latency failed validation: "DATA VALIDATION ERROR: ./osu_latency exited with status 1 on message size 2."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse = %d samples, want an error", len(got))
			}
			if got != nil {
				t.Errorf("samples %v returned with error %v", got, err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v, want one that is %v", err, tt.wantIs)
			}
			if tt.wantIs == nil && errors.Is(err, results.ErrNoSamples) {
				t.Errorf("error %v should not be ErrNoSamples", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestTitles checks that every title maps to its own key: two titles
// folding to the same key would shadow each other.
func TestTitles(t *testing.T) {
	programs := map[string]bool{}
	for _, test := range tests {
		programs[test] = true
	}
	for _, want := range []string{"osu_latency", "osu_bw", "osu_bibw", "osu_multi_lat", "osu_mbw_mr",
		"osu_allreduce", "osu_alltoall", "osu_allgather", "osu_bcast", "osu_reduce", "osu_gather",
		"osu_scatter", "osu_barrier", "osu_reduce_scatter"} {
		if !programs[want] {
			t.Errorf("no title for %s", want)
		}
	}
	// osu_ialltoall has two titles; every other test one.
	if got, want := len(tests), len(programs)+1; got != want {
		t.Errorf("%d titles for %d tests, want %d", got, len(programs), want)
	}
}

// BenchmarkParse1000Lines parses a 1,000-line osu_latency log made of the
// fixture's header and rows repeated with increasing sizes.
func BenchmarkParse1000Lines(b *testing.B) {
	data := fixtures.Read(b, "osu/osu_latency_v5.8_gke_flux.txt")
	lines := strings.Split(string(data), "\n")
	var rows []string
	for _, l := range lines[2:] {
		if f := strings.Fields(l); len(f) == 2 && digits.All(f[0]) {
			rows = append(rows, f[1])
		}
	}
	var log strings.Builder
	log.WriteString(lines[0] + "\n" + lines[1] + "\n")
	for i := range 998 {
		fmt.Fprintf(&log, "%-10d%20s\n", i, rows[i%len(rows)])
	}
	input := []byte(log.String())
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		samples, err := Parse(input)
		if err != nil || len(samples) != 998 {
			b.Fatalf("%d samples, %v", len(samples), err)
		}
	}
}
