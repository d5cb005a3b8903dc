package resultsdb

import (
	"context"
	"errors"
	"path"
	"reflect"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// EachSample reads every selected run's samples, run by run (finished
// time, then UID bytewise), across pages of runs, on both engines alike.
func TestEachSample(t *testing.T) {
	defer func(n int) { runPage = n }(runPage)
	runPage = 3 // B-run and a-run, finished at once, on two pages
	mt := map[string]string{results.LabelMachineType: "c3-standard-8"}
	type indexed struct {
		run     Run
		samples []results.Sample
	}
	var all []indexed
	for _, r := range []struct {
		uid string
		day int
	}{{"d", 3}, {"a-run", 1}, {"B-run", 1}, {"c", 0}, {"e", 4}} {
		run, samples := fioRun(r.uid, "fio", r.day, mt, 1000, 1100)
		all = append(all, indexed{run, samples})
	}
	all[0].run.Nodes = []results.NodeInfo{{Hostname: "n1", MachineType: "c3-standard-8", CPUs: 8}}
	all[0].samples[1].Labels = map[string]string{results.LabelWarmup: "true", results.LabelCampaign: "s0"}
	mpi, mpiSamples := bigRun("mpi", 3)
	mpi.Namespace = "team-a"
	all = append(all, indexed{mpi, mpiSamples})

	got := map[string][]StoredSample{}
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		for _, r := range all {
			index(t, db, r.run, r.samples)
		}
		ctx := context.Background()
		read := func(f RunFilter) ([]string, []StoredSample) {
			var uids []string
			var out []StoredSample
			err := db.EachSample(ctx, f, func(s StoredSample) error {
				if len(uids) == 0 || uids[len(uids)-1] != s.Run.UID {
					uids = append(uids, s.Run.UID)
				}
				out = append(out, s)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return uids, out
		}
		uids, samples := read(RunFilter{})
		// mpi finished at t0+1h: after c (t0), before B-run and a-run (t0+1d).
		if want := []string{"c", "mpi", "B-run", "a-run", "d", "e"}; !reflect.DeepEqual(uids, want) {
			t.Errorf("runs %v, want %v", uids, want)
		}
		if len(samples) != 5*4+3 {
			t.Fatalf("%d samples, want 23", len(samples))
		}
		var d []StoredSample
		for _, s := range samples {
			if s.Run.UID == "d" {
				d = append(d, s)
			}
		}
		first, warm := d[0], d[1]
		if first.Seq != 1 || first.Test != "randread-4k" || first.Metric != "read_iops" || first.Unit != "IOPS" ||
			first.Value != 1000 || first.Warmup || !first.Time.Equal(all[0].run.Finished) || first.Labels[results.LabelNode] != "node-0" {
			t.Errorf("d's first sample: %+v", first)
		}
		if !warm.Warmup || warm.Seq != 2 || !warm.Time.IsZero() || warm.Metric != "read_bw" || warm.Labels[results.LabelCampaign] != "s0" {
			t.Errorf("d's warm-up sample: %+v", warm)
		}
		if r := first.Run; r.Campaign != "s0" || r.Series != "fio" || len(r.Nodes) != 1 || r.Nodes[0].CPUs != 8 ||
			!r.Started.Equal(all[0].run.Started) || r.Location != all[0].run.Location {
			t.Errorf("d's run: %+v", r)
		}
		var config string
		if err := db.sql.QueryRow(db.rebind(`SELECT config FROM samples WHERE run_uid = 'd' AND seq = 1`)).Scan(&config); err != nil || first.ConfigID != config {
			t.Errorf("config %q, stored %q (%v)", first.ConfigID, config, err)
		}
		got[path.Base(t.Name())] = samples
		for _, tc := range []struct {
			f    RunFilter
			want []string
		}{
			{RunFilter{Since: t0.AddDate(0, 0, 1)}, []string{"B-run", "a-run", "d", "e"}},
			{RunFilter{Kind: "MPIBenchmark"}, []string{"mpi"}},
			{RunFilter{Namespace: "team-a", Since: t0.Add(time.Minute)}, []string{"mpi", "B-run", "a-run", "d", "e"}},
			{RunFilter{Namespace: "elsewhere"}, nil},
		} {
			if uids, _ := read(tc.f); !reflect.DeepEqual(uids, tc.want) {
				t.Errorf("%+v: runs %v, want %v", tc.f, uids, tc.want)
			}
		}
		stop := errors.New("enough")
		n := 0
		if err := db.EachSample(ctx, RunFilter{}, func(StoredSample) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
			t.Errorf("an error from f: %v after %d samples", err, n)
		}
	})
	if !reflect.DeepEqual(got["sqlite"], got["postgres"]) {
		t.Error("the engines read the samples differently")
	}
}
