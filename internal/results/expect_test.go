package results

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func summary(test, metric, unit, size string, median float64) Summary {
	s := Summary{Test: test, Metric: metric, Unit: unit, Stats: Stats{Median: median, N: 3}}
	if size != "" {
		s.Labels = map[string]string{LabelMsgSize: size}
	}
	return s
}

func TestEvaluate(t *testing.T) {
	run := []Summary{
		summary("randread", "read_iops", "IOPS", "", 41000),
		summary("osu_latency", "latency", "us", "0", 2.1),
		summary("osu_latency", "latency", "us", "8", 2.3),
		summary("osu_latency", "latency", "us", "1024", 3.9),
		summary("osu_bw", "bandwidth", "MB/s", "8", 12),
		summary("osu_bw", "bandwidth", "MB/s", "65536", 9800),
		summary("osu_bw", "bandwidth", "MB/s", "4194304", 9100),
	}
	base := []Summary{
		summary("randread", "read_iops", "IOPS", "", 40000),
		summary("osu_latency", "latency", "us", "8", 2.0),
	}
	lookup := func(name string) ([]Summary, error) {
		if name == "c2" {
			return base, nil
		}
		return nil, ErrNoBaseline
	}
	for _, tc := range []struct {
		name    string
		exp     benchv1.Expectation
		met     bool
		problem string
	}{
		{"at least, held", benchv1.Expectation{Test: "randread", Metric: "read_iops", AtLeast: ptr.To(40000.0)}, true, ""},
		{"at least, failed", benchv1.Expectation{Test: "randread", Metric: "read_iops", AtLeast: ptr.To(50000.0)}, false, "below 50000"},
		{"latency without a size is the smallest non-zero size", benchv1.Expectation{Test: "osu_latency", Metric: "latency", AtMost: ptr.To(2.2)}, false, "above 2.2"},
		{"bandwidth without a size is the peak", benchv1.Expectation{Test: "osu_bw", Metric: "bandwidth", AtLeast: ptr.To(9500.0)}, true, ""},
		{"at a size", benchv1.Expectation{Test: "osu_latency", Metric: "latency", MessageSize: ptr.To[int64](1024), AtMost: ptr.To(4.0)}, true, ""},
		{"missing figure", benchv1.Expectation{Test: "osu_latency", Metric: "latency", MessageSize: ptr.To[int64](2048), AtMost: ptr.To(4.0)}, false, "the run has no such figure"},
		{"relative, higher is better, within 5%", benchv1.Expectation{Test: "randread", Metric: "read_iops", Relative: &benchv1.RelativeExpectation{Baseline: "c2"}}, true, ""},
		{"relative, latency 15% worse", benchv1.Expectation{Test: "osu_latency", Metric: "latency", Relative: &benchv1.RelativeExpectation{Baseline: "c2", Tolerance: "10%"}}, false, "15.0% higher than the baseline (lower is better)"},
		{"ratio at least, held", benchv1.Expectation{Test: "randread", Metric: "read_iops", Relative: &benchv1.RelativeExpectation{Baseline: "c2", AtLeast: ptr.To(1.02)}}, true, ""},
		{"ratio at least, failed", benchv1.Expectation{Test: "randread", Metric: "read_iops", Relative: &benchv1.RelativeExpectation{Baseline: "c2", AtLeast: ptr.To(2.6)}}, false, "1.02x the baseline, below 2.6x"},
		{"ratio at most, latency", benchv1.Expectation{Test: "osu_latency", Metric: "latency", Relative: &benchv1.RelativeExpectation{Baseline: "c2", AtMost: ptr.To(1.1)}}, false, "1.15x the baseline, above 1.1x"},
		{"ratio between", benchv1.Expectation{Test: "osu_latency", Metric: "latency", Relative: &benchv1.RelativeExpectation{Baseline: "c2", AtLeast: ptr.To(1.1), AtMost: ptr.To(1.2)}}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks, err := Evaluate([]benchv1.Expectation{tc.exp}, run, Baselines{Named: lookup})
			if err != nil {
				t.Fatal(err)
			}
			c := checks[0]
			if c.Met != tc.met || c.Problem != tc.problem {
				t.Errorf("met %v problem %q, want %v %q (%s)", c.Met, c.Problem, tc.met, tc.problem, c.Describe())
			}
		})
	}
	_, err := Evaluate([]benchv1.Expectation{{Test: "randread", Metric: "read_iops", Relative: &benchv1.RelativeExpectation{Baseline: "c9"}}}, run, Baselines{Named: lookup})
	if !errors.Is(err, ErrNoBaseline) {
		t.Errorf("missing baseline: %v", err)
	}
	checks, _ := Evaluate([]benchv1.Expectation{{Test: "randread", Metric: "read_iops", Relative: &benchv1.RelativeExpectation{Baseline: "c2", AtLeast: ptr.To(2.6)}}}, run, Baselines{Named: lookup})
	if d := checks[0].Describe(); d != "randread read_iops = 41000 IOPS (1.02x baseline c2's 40000; at least 2.6x): 1.02x the baseline, below 2.6x" {
		t.Errorf("Describe: %q", d)
	}
	checks, _ = Evaluate([]benchv1.Expectation{{Test: "randread", Metric: "read_iops", AtLeast: ptr.To(50000.0)}}, run, Baselines{Named: lookup})
	if d := checks[0].Describe(); !strings.HasPrefix(d, "randread read_iops = 41000 IOPS (at least 50000): below 50000") {
		t.Errorf("Describe: %q", d)
	}
}

// A history expectation compares with the median of the figure's earlier
// runs, says so, and is not checked (ErrNoHistory) without them.
func TestEvaluateAgainstHistory(t *testing.T) {
	run := []Summary{summary("randread", "read_iops", "IOPS", "", 41000)}
	history := func(medians ...float64) Baselines {
		return Baselines{History: func(e benchv1.Expectation, runs int) (float64, int, error) {
			if len(medians) == 0 {
				return 0, 0, ErrNoHistory
			}
			return medians[0], min(runs, len(medians)), nil
		}}
	}
	exp := benchv1.Expectation{Test: "randread", Metric: "read_iops",
		Relative: &benchv1.RelativeExpectation{History: &benchv1.HistoryBaseline{Runs: 10}, Tolerance: "5%"}}
	checks, err := Evaluate([]benchv1.Expectation{exp}, run, history(45000, 1, 1))
	if err != nil || len(checks) != 1 || checks[0].Met || checks[0].BaselineRuns != 3 {
		t.Fatalf("%+v, %v", checks, err)
	}
	want := "randread read_iops = 41000 IOPS (the median of its last 3 run(s): 45000, tolerance 5%): 8.9% lower than the baseline (higher is better)"
	if got := checks[0].Describe(); got != want {
		t.Errorf("Describe:\n got %s\nwant %s", got, want)
	}
	if checks, _ := Evaluate([]benchv1.Expectation{exp}, run, history(42000)); !checks[0].Met {
		t.Errorf("2.4%% below the history's median, 5%% allowed: %s", checks[0].Describe())
	}
	if _, err := Evaluate([]benchv1.Expectation{exp}, run, history()); !errors.Is(err, ErrNoHistory) || !errors.Is(err, ErrNoBaseline) {
		t.Errorf("no earlier runs: %v", err)
	}
	if _, err := Evaluate([]benchv1.Expectation{exp}, run, Baselines{}); !errors.Is(err, ErrNoBaseline) {
		t.Errorf("no history lookup: %v", err)
	}
}
