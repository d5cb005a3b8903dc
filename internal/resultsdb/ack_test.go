package resultsdb

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

// An acknowledged change is kept per configuration and run, once; a run
// the configuration lacks is refused; forgetting the run forgets it.
func TestAcknowledge(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		ctx := context.Background()
		run, samples := fioRun("uid-1", "fio", 0, map[string]string{results.LabelMachineType: "c3-standard-8"}, 1000, 1010)
		index(t, db, run, samples)
		hs, err := db.History(ctx, Query{Metric: "read_iops"})
		if err != nil || len(hs) != 1 {
			t.Fatalf("%v %v", hs, err)
		}
		c := hs[0].Config
		for range 2 {
			if err := db.Acknowledge(ctx, c, "uid-1", "new kernel"); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := db.Acknowledged(ctx, c); err != nil || !slices.Equal(got, []string{"uid-1"}) {
			t.Errorf("acknowledged %v (%v), want [uid-1]", got, err)
		}
		if err := db.Acknowledge(ctx, c, "uid-9", ""); err == nil || !strings.Contains(err.Error(), "has no figure of") {
			t.Errorf("a run without the figure: %v", err)
		}
		if err := db.Forget(ctx, "uid-1"); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Acknowledged(ctx, c); len(got) != 0 {
			t.Errorf("after Forget: %v", got)
		}
	})
}
