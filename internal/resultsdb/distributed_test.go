package resultsdb

import (
	"context"
	"fmt"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

// distributedRun is a fio run on nodes nodes, each at perNode IOPS in each
// of 3 repetitions; label says whether its samples carry the node count
// (runs stored before it was a label do not).
func distributedRun(uid string, day, nodes int, perNode float64, label bool) (Run, []results.Sample) {
	run, _ := fioRun(uid, "fio-spread", day, map[string]string{})
	var out []results.Sample
	for rep := range 3 {
		for n := range nodes {
			l := map[string]string{results.LabelNode: fmt.Sprintf("node-%d", n)}
			if label && nodes > 1 {
				l[results.LabelNodes] = fmt.Sprint(nodes)
			}
			out = append(out, results.Sample{RunUID: uid, Test: "randread-4k", Metric: "read_iops", Unit: "IOPS",
				Value: perNode, Repetition: rep, Labels: l})
		}
	}
	return run, out
}

// A distributed run's point is its figure, the nodes' IOPS summed, and its
// node count is part of its configuration; a run stored before the count
// was a label keeps the configuration it had, its point summed as well.
func TestDistributedRunsPointIsItsSum(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		for _, r := range []struct {
			uid          string
			nodes        int
			label        bool
			day          int
			wantMedian   float64
			wantNodesKey string
		}{
			{"uid-old", 2, false, 0, 2000, ""},
			{"uid-one", 1, true, 1, 1000, ""},
			{"uid-two", 2, true, 2, 2000, "2"},
			{"uid-four", 4, true, 3, 4000, "4"},
		} {
			run, samples := distributedRun(r.uid, r.day, r.nodes, 1000, r.label)
			index(t, db, run, samples)
		}
		hs, err := db.History(context.Background(), Query{Metric: "read_iops", Series: "fio-spread"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]float64{}
		for _, h := range hs {
			for _, p := range h.Points {
				got[h.Config.Labels[results.LabelNodes]] = append(got[h.Config.Labels[results.LabelNodes]], p.Median)
			}
		}
		want := map[string][]float64{"": {2000, 1000}, "2": {2000}, "4": {4000}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("medians by node count %v, want %v", got, want)
		}
	})
}
