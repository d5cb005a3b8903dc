package iperf3

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

func readReal(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// byMetric indexes samples by repetition and metric.
func byMetric(samples []results.Sample) map[string]results.Sample {
	out := map[string]results.Sample{}
	for _, s := range samples {
		out[string(rune('0'+s.Repetition))+" "+s.Metric] = s
	}
	return out
}

// The real iperf3 3.12 here (testdata/real/README.md): each figure as the
// JSON holds it, Gbit/s from bits_per_second.
func TestParseRealOutputs(t *testing.T) {
	for _, tc := range []struct {
		file   string
		want   map[string]float64
		labels map[string]string
	}{
		{"iperf3_3.12_tcp_1stream.json", map[string]float64{
			"0 bandwidth": 20.337195180416744, "0 bandwidth_sent": 20.483049047222706, "0 retransmits": 2,
			"0 cpu_host": 38.0896897035982, "0 cpu_remote": 41.2282120939318,
		}, map[string]string{"tool": "iperf3", "tool_version": "3.12", "protocol": "tcp", "streams": "1", "reverse": "false", "block_size": "131072"}},
		{"iperf3_3.12_tcp_2streams_reverse.json", map[string]float64{"0 bandwidth": 23.545603064622387},
			map[string]string{"protocol": "tcp", "streams": "2", "reverse": "true"}},
		{"iperf3_3.12_udp_100M.json", map[string]float64{"0 bandwidth": 0.10011137725987628, "0 jitter": 0.0040719890715408555, "0 lost_percent": 0},
			map[string]string{"protocol": "udp", "block_size": "32768"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			samples, err := Parse(readReal(t, tc.file), "tcp-1")
			if err != nil {
				t.Fatal(err)
			}
			got := byMetric(samples)
			for k, v := range tc.want {
				if s, ok := got[k]; !ok || math.Abs(s.Value-v) > 1e-12*math.Abs(v) {
					t.Errorf("%s = %v (present %v), want %v", k, s.Value, ok, v)
				}
			}
			s := got["0 bandwidth"]
			for k, v := range tc.labels {
				if s.Labels[k] != v {
					t.Errorf("label %s = %q, want %q", k, s.Labels[k], v)
				}
			}
			if s.Test != "tcp-1" || s.Unit != "Gbit/s" {
				t.Errorf("sample %+v", s)
			}
		})
	}
	// Two runs one after the other are repetitions.
	two := append(readReal(t, "iperf3_3.12_tcp_1stream.json"), readReal(t, "iperf3_3.12_tcp_2streams_reverse.json")...)
	samples, err := Parse(two, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := byMetric(samples); math.Abs(got["1 bandwidth"].Value-23.545603064622387) > 1e-9 || got["0 bandwidth"].Test != "iperf3" {
		t.Errorf("two runs: %v", got)
	}
}

func TestParseErrors(t *testing.T) {
	tcp := string(readReal(t, "iperf3_3.12_tcp_1stream.json"))
	for _, tc := range []struct{ name, in, want string }{
		{"refused (the real iperf3 with no server)", string(readReal(t, "iperf3_3.12_refused.json")),
			`iperf3 reported an error: "unable to connect to server: Connection refused"`},
		{"cut off", tcp[:len(tcp)/2], "iperf3 JSON document 1 is cut off: the run did not finish"},
		{"text output", "Connecting to host 127.0.0.1, port 5201\n[  5] local 127.0.0.1 port 5\n", "not iperf3 JSON output (run iperf3 with -J)"},
		{"another JSON", `{"jobs": []}`, `not iperf3 -J output`},
		{"negative", tcp[:strings.LastIndex(tcp, `"retransmits":	2,`)] + `"retransmits":	-2,` + tcp[strings.LastIndex(tcp, `"retransmits":	2,`)+len(`"retransmits":	2,`):], "retransmits is -2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			samples, err := Parse([]byte(tc.in), "x")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v (%d samples), want an error containing %q", err, len(samples), tc.want)
			}
		})
	}
	if _, err := Parse([]byte("\n"), "x"); !errors.Is(err, results.ErrNoSamples) {
		t.Errorf("empty: %v", err)
	}
}
