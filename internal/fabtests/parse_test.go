package fabtests

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

func readReal(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// figure finds the sample of metric at size (and rank, when given).
func figure(t *testing.T, samples []results.Sample, metric string, size, rank string) results.Sample {
	t.Helper()
	for _, s := range samples {
		if s.Metric == metric && s.Labels[results.LabelMsgSize] == size && s.Labels[LabelRank] == rank {
			return s
		}
	}
	t.Fatalf("no %s at %s bytes (rank %q)", metric, size, rank)
	return results.Sample{}
}

// The real fabtests 1.17 built here (testdata/real/README.md), both sides of
// each run: every size of -S all (1 B to 8 MiB, 46 rows), three figures each.
func TestParseRealOutputs(t *testing.T) {
	for _, tc := range []struct {
		file, test string
		// one row, as printed: size in bytes, MB/sec, usec/xfer, Mxfers/sec.
		size          string
		bw, lat, rate float64
	}{
		{"fi_msg_bw_tcp_1.17_client.txt", "fi_msg_bw", "1536", 230.11, 6.68, 0.15},
		{"fi_msg_bw_tcp_1.17_client.txt", "fi_msg_bw", "8388608", 5051.35, 1660.67, 0},
		{"fi_msg_bw_tcp_1.17_server.txt", "fi_msg_bw", "1", 0.17, 5.76, 0.17},
		{"fi_rdm_tagged_bw_sockets_1.17_client.txt", "fi_rdm_tagged_bw", "1", 0, 349.54, 0},
		{"fi_rma_bw_write_sockets_1.17_client.txt", "fi_rma_bw", "2", 2.27, 0.88, 1.14},
		{"fi_msg_pingpong_tcp_1.17_client.txt", "fi_msg_pingpong", "2", 0.24, 8.40, 0.12},
	} {
		t.Run(tc.file+"/"+tc.size, func(t *testing.T) {
			samples, err := Parse(readReal(t, tc.file), tc.test)
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != 46*3 {
				t.Errorf("%d samples, want 46 sizes x 3 figures", len(samples))
			}
			got := []float64{figure(t, samples, MetricBandwidth, tc.size, "").Value,
				figure(t, samples, MetricLatency, tc.size, "").Value, figure(t, samples, MetricMessageRate, tc.size, "").Value}
			if diff := cmp.Diff([]float64{tc.bw, tc.lat, tc.rate}, got); diff != "" {
				t.Errorf("figures (-want +got):\n%s", diff)
			}
			s := figure(t, samples, MetricLatency, tc.size, "")
			if s.Test != tc.test || s.Unit != "us" || s.Labels[results.LabelTool] != "fabtests" || s.Labels[LabelIterations] != "200" {
				t.Errorf("sample %+v", s)
			}
		})
	}
}

// Public outputs (../shared/fixtures/fabtests): libfabric 2.0's fi_rma_bw
// over EFA, fi_pingpong's #sent/#ack table after a script's lines, and two
// ranks' interleaved tables behind "[rank N] " prefixes.
func TestParsePublicFixtures(t *testing.T) {
	rma, err := Parse(fixtures.Read(t, "fabtests/fi_rma_bw_write_efa_cuda_libfabric2.0.0_blog.txt"), "fi_rma_bw")
	if err != nil {
		t.Fatal(err)
	}
	if s := figure(t, rma, MetricBandwidth, "6", ""); s.Value != 4.72 || s.Labels[LabelIterations] != "20000" {
		t.Errorf("6 B: %+v", s)
	}
	ping, err := Parse(fixtures.Read(t, "fabtests/fi_pingpong_efa_test_sh_localhost_aws-cdi-sdk.txt"), "fi_pingpong")
	if err != nil {
		t.Fatal(err)
	}
	if len(ping) != 6*3 || figure(t, ping, MetricLatency, "1048576", "").Value != 444.50 || figure(t, ping, MetricLatency, "1048576", "").Labels[LabelIterations] != "10" {
		t.Errorf("fi_pingpong: %d samples; 1 MiB %+v", len(ping), figure(t, ping, MetricLatency, "1048576", ""))
	}
	ranks, err := Parse(fixtures.Read(t, "fabtests/fi_pingpong_efa_rank_prefixed_modal.txt"), "fi_pingpong")
	if err != nil {
		t.Fatal(err)
	}
	if figure(t, ranks, MetricLatency, "64", "1").Value != 36.25 || figure(t, ranks, MetricLatency, "64", "0").Value != 38.50 {
		t.Errorf("rank-prefixed: %v", ranks)
	}
}

func TestParseErrors(t *testing.T) {
	real := string(readReal(t, "fi_msg_bw_tcp_1.17_client.txt"))
	cut := real[:strings.Index(real, "\n1.5k")+len("\n1.5k    200")]
	for _, tc := range []struct {
		name, in, want string
	}{
		{"fi_getinfo failed (the real fi_msg_bw -p verbs here)", string(readReal(t, "fi_msg_bw_verbs_getinfo_error_1.17.txt")),
			`fabtests reported an error on line 1: "fi_getinfo(): common/shared.c:918, ret=-61 (No data available)"`},
		{"connection refused (no server)", string(readReal(t, "fi_msg_bw_tcp_refused_1.17.txt")),
			`fabtests reported an error on line 1: "[error] fabtests:common/shared.c:2651: eq_readerr 111 (Connection refused), provider errno: 0 (Success)"`},
		{"cut off", cut, `is cut off ("1.5k    200"): the run did not finish`},
		{"not a figure", strings.Replace(real, "230.11", "23x.11", 1), `column MB/sec: "23x.11" is not a figure`},
		{"negative", strings.Replace(real, "230.11", "-230.11", 1), `column MB/sec: "-230.11" is not a figure`},
		{"a bad size", strings.Replace(real, "\n1.5k ", "\n1.5q ", 1), `column bytes: "1.5q" is not a size`},
		{"header only", "bytes   iters   total       time     MB/sec    usec/xfer   Mxfers/sec\n", "header but no row"},
		{"not fabtests", "# OSU MPI Latency Test v7.4\n8 0.21\n", "not fabtests output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			samples, err := Parse([]byte(tc.in), "fi_msg_bw")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v (%d samples), want an error containing %q", err, len(samples), tc.want)
			}
		})
	}
	if _, err := Parse([]byte(" \n"), "x"); !errors.Is(err, results.ErrNoSamples) {
		t.Errorf("empty: %v", err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "768": 768, "1k": 1024, "1.5k": 1536, "12k": 12288, "8m": 8 << 20, "1.5g": 3 << 29} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
