package campaign

import (
	"encoding/json"
	"strings"
	"testing"
)

// S0's "C3 at least 2.6x C2": an expectation in the fio entry, for the c3
// cells, against the c2 cell of the same tuning and benchmark.
func TestExpectationsAgainstACell(t *testing.T) {
	m, err := Parse(Params{Pools: `[{"name": "c2"}, {"name": "c2d"}, {"name": "c3"}]`, Tunings: `[{"name": "none"}, {"name": "tcp"}]`,
		Benchmarks: `[{"name": "fio", "kind": "StorageBenchmark", "spec": {"expectations": [
			{"test": "randread-4k", "metric": "read_iops", "for": {"pool": "c3"}, "relative": {"cell": {"pool": "c2"}, "atLeast": 2.6}},
			{"test": "randread-4k", "metric": "read_iops", "relative": {"cell": {"pool": "c2"}, "atLeast": 0.5}},
			{"test": "randread-4k", "metric": "read_iops", "atLeast": 1000}]}}]`})
	if err != nil {
		t.Fatal(err)
	}
	wf := Workflow{Namespace: "campaigns", Name: "s0-ab"}
	expectations := func(pool, tuning string) string {
		c, err := m.Cell(pool, tuning)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(m.BenchmarkObject(wf, c, m.Benchmarks[0]).Object["spec"].(map[string]any)["expectations"])
		return string(b)
	}
	for _, tc := range []struct{ pool, tuning, want string }{
		{"c3", "tcp", `[{"metric":"read_iops","relative":{"atLeast":2.6,"baseline":"s0-ab-c2-tcp-fio"},"test":"randread-4k"},` +
			`{"metric":"read_iops","relative":{"atLeast":0.5,"baseline":"s0-ab-c2-tcp-fio"},"test":"randread-4k"},{"atLeast":1000,"metric":"read_iops","test":"randread-4k"}]`},
		{"c2d", "none", `[{"metric":"read_iops","relative":{"atLeast":0.5,"baseline":"s0-ab-c2-none-fio"},"test":"randread-4k"},{"atLeast":1000,"metric":"read_iops","test":"randread-4k"}]`},
		// The baseline's own cell: no comparison with itself.
		{"c2", "none", `[{"atLeast":1000,"metric":"read_iops","test":"randread-4k"}]`},
	} {
		if got := expectations(tc.pool, tc.tuning); got != tc.want {
			t.Errorf("%s/%s expectations\n%s, want\n%s", tc.pool, tc.tuning, got, tc.want)
		}
	}
	if !strings.Contains(m.Benchmarks[0].Spec["expectations"].([]any)[0].(map[string]any)["relative"].(map[string]any)["cell"].(map[string]any)["pool"].(string), "c2") {
		t.Error("resolving a cell's expectations changed the matrix")
	}
}

func TestExpectationCellsAreChecked(t *testing.T) {
	for _, tc := range []struct{ exp, want string }{
		{`{"test": "t", "metric": "m", "relative": {"cell": {"pool": "c9"}}}`, `expectations[0].relative.cell: pool "c9" is none of the campaign's: c2, c3`},
		{`{"test": "t", "metric": "m", "relative": {"cell": {"zone": "a"}}}`, `expectations[0].relative.cell: "zone" is no dimension: use pool, tuning, benchmark`},
		{`{"test": "t", "metric": "m", "for": {"tuning": "tcp"}}`, `expectations[0].for: tuning "tcp" is none of the campaign's: none`},
		{`{"test": "t", "metric": "m", "for": "c3"}`, `expectations[0].for: give an object of dimension values`},
		{`{"test": "t", "metric": "m", "relative": {"cell": {"pool": 2}}}`, `expectations[0].relative.cell: pool: give the value's name as a string`},
		{`{"test": "t", "metric": "m", "relative": {"cell": {"benchmark": "osu"}}}`, `benchmark "osu" is a MPIBenchmark, this one a StorageBenchmark`},
		{`{"test": "t", "metric": "m", "relative": {"cell": {"pool": "c2"}, "baseline": "x"}}`, `give cell or baseline, not both`},
	} {
		_, err := Parse(Params{Pools: `[{"name": "c2"}, {"name": "c3"}]`,
			Benchmarks: `[{"name": "fio", "kind": "StorageBenchmark", "spec": {"expectations": [` + tc.exp + `]}}, {"name": "osu", "kind": "MPIBenchmark"}]`})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `parameter benchmarks[0] ("fio"): `) {
			t.Errorf("%s: %v, want %q", tc.exp, err, tc.want)
		}
	}
}
