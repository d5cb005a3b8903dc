package compare

import "testing"

// A cell that succeeded but has no run in a group of another label's value
// (S2's scope) is not "no osu cell: succeeded": its run is elsewhere.
func TestMissingSaysWhy(t *testing.T) {
	dim := Dimension{Name: DimBenchmark, Values: []string{"osu", "fabtests"}, Declared: true}
	cells := []Cell{{Pool: "c3", Tuning: "none", Benchmark: "osu", State: "Succeeded"}, {Pool: "c3", Tuning: "none", Benchmark: "fio", State: "Failed"}}
	others, key := []string{DimPool, "scope"}, []string{"c3", "interNode"}
	if got := missing(dim, "osu", others, key, cells); got != "no osu run with scope=interNode" {
		t.Errorf("succeeded cell: %q", got)
	}
	if got := missing(dim, "fio", others, key, cells); got != "no fio cell: failed" {
		t.Errorf("failed cell: %q", got)
	}
}
