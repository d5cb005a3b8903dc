package resultsdb

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// storedRows are the samples table's rows of a run, by seq.
func storedRows(t *testing.T, db *DB, uid string) []sampleRow {
	t.Helper()
	rows, err := db.sql.Query(db.rebind(`SELECT seq, config, value, repetition, warmup, ts_ns, labels
		FROM samples WHERE run_uid = ? ORDER BY seq`), uid)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []sampleRow
	for rows.Next() {
		var r sampleRow
		if err := rows.Scan(&r.seq, &r.config, &r.value, &r.repetition, &r.warmup, &r.ts, &r.labels); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A run of several COPY batches (PostgreSQL) and INSERT batches (SQLite)
// is stored as the same rows on both engines: every sample once, in order,
// hostile labels bounded the same way.
func TestEnginesStoreTheSameRows(t *testing.T) {
	n := 2*copyBatch + 1234
	run, samples := bigRun("many", n)
	for i := range samples {
		if i%7 == 0 {
			samples[i].Timestamp = t0.Add(time.Duration(i) * time.Millisecond)
		}
		if i%1000 == 3 {
			samples[i].Labels["x-hostile"] = "a\x00b'); DROP TABLE samples; --\n\"é"
			samples[i].Labels[results.LabelWarmup] = "true"
			samples[i].Test = "bad\x00test"
		}
	}
	got := map[string][]sampleRow{}
	eachEngine(t, func(t *testing.T, db *DB, engine string) {
		index(t, db, run, samples)
		rows := storedRows(t, db, "many")
		if len(rows) != n {
			t.Fatalf("%d rows stored, want %d", len(rows), n)
		}
		for i, r := range rows {
			if r.seq != i+1 || r.value != samples[i].Value || r.repetition != samples[i].Repetition {
				t.Fatalf("row %d: %+v, want seq %d of %+v", i, r, i+1, samples[i])
			}
		}
		if r := rows[3]; r.warmup != 1 || r.labels == "" || rows[4].warmup != 0 {
			t.Errorf("the warm-up rows: %+v, %+v", r, rows[4])
		}
		if rows[7].ts != samples[7].Timestamp.UnixNano() || rows[8].ts != 0 {
			t.Errorf("timestamps: %d and %d", rows[7].ts, rows[8].ts)
		}
		got[t.Name()] = rows
	})
	if len(got) != 2 {
		t.Fatalf("rows of %d engines", len(got))
	}
	sqlite, pg := got[t.Name()+"/sqlite"], got[t.Name()+"/postgres"]
	if !reflect.DeepEqual(sqlite, pg) {
		for i := range sqlite {
			if sqlite[i] != pg[i] {
				t.Fatalf("the engines store row %d differently:\nsqlite   %+v\npostgres %+v", i, sqlite[i], pg[i])
			}
		}
	}
}

// A run whose samples fail after whole batches were written (COPY on
// PostgreSQL) leaves nothing: no run, no configuration of it, no sample.
func TestAFailedReadAfterBatchesLeavesNothing(t *testing.T) {
	run, samples := bigRun("cut", 2*copyBatch+10)
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		broken := errors.New("the store went away")
		_, err := db.Index(context.Background(), run, func(add func(results.Sample) error) error {
			for _, s := range samples[:2*copyBatch+5] {
				if err := add(s); err != nil {
					return err
				}
			}
			return broken
		})
		if !errors.Is(err, broken) {
			t.Fatalf("Index: %v, want the source's error", err)
		}
		for _, table := range []string{"runs", "samples", "config_runs"} {
			var n int
			if err := db.sql.QueryRow(fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE run_uid = 'cut'`, table)).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s: %d rows of the failed run (%v)", table, n, err)
			}
		}
		// And the run indexes whole afterwards.
		if !index(t, db, run, samples) || len(storedRows(t, db, "cut")) != len(samples) {
			t.Error("the run did not index after the failed attempt")
		}
	})
}
