package resultsdb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// RunFilter selects runs; a field left empty matches any run.
type RunFilter struct {
	// Since drops runs finished before it.
	Since           time.Time
	Namespace, Kind string
}

// StoredSample is a sample as the database keeps it, with its run and its
// configuration's ID.
type StoredSample struct {
	// Run is the sample's run, shared by the run's samples (Series, Pool,
	// Tuning and Campaign as indexed).
	Run *Run
	// Seq is the sample's place in its run, from 1.
	Seq                int
	ConfigID           string
	Test, Metric, Unit string
	Value              float64
	Repetition         int
	Warmup             bool
	// Time is the tool's timestamp of the sample, zero when it gave none.
	Time   time.Time
	Labels map[string]string
}

// runPage is how many runs EachSample reads at a time.
var runPage = 200

// EachSample hands f every sample of the runs filter selects: run by run,
// the oldest finished first (then by UID), each run's samples in order. It
// holds a page of runs and one sample at a time, whatever the database's
// size. It reads in no transaction: a run indexed meanwhile may be left
// out, but each run's samples are read whole, in one statement. f must not
// use db (SQLite's one connection is reading); an error from f stops it.
func (db *DB) EachSample(ctx context.Context, filter RunFilter, f func(StoredSample) error) error {
	var after *Run
	for {
		runs, err := db.runsAfter(ctx, filter, after)
		if err != nil {
			return err
		}
		for i := range runs {
			if err := db.eachSampleOf(ctx, &runs[i], f); err != nil {
				return err
			}
		}
		if len(runs) < runPage {
			return nil
		}
		after = &runs[len(runs)-1]
	}
}

// runsAfter is the next page of the runs filter selects, after the run
// after (nil: from the first). UIDs compare bytewise on both engines.
func (db *DB) runsAfter(ctx context.Context, filter RunFilter, after *Run) ([]Run, error) {
	uid := "run_uid"
	if db.dialect == postgresDialect {
		uid = `run_uid COLLATE "C"`
	}
	var (
		where []string
		args  []any
	)
	if !filter.Since.IsZero() {
		where, args = append(where, "finished_ns >= ?"), append(args, filter.Since.UnixNano())
	}
	for _, c := range []struct{ col, v string }{{"namespace", filter.Namespace}, {"kind", filter.Kind}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	if after != nil {
		ns := after.Finished.UnixNano()
		where, args = append(where, "(finished_ns > ? OR (finished_ns = ? AND "+uid+" > ?))"), append(args, ns, ns, after.UID)
	}
	query := `SELECT run_uid, kind, namespace, name, campaign, series, pool, tuning, started_ns, finished_ns, location, nodes FROM runs`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	query += ` ORDER BY finished_ns, ` + uid + ` LIMIT ?`
	rows, err := db.sql.QueryContext(ctx, db.rebind(query), append(args, runPage)...)
	if err != nil {
		return nil, fmt.Errorf("reading the runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var (
			r                 Run
			started, finished int64
			nodes             string
		)
		if err := rows.Scan(&r.UID, &r.Kind, &r.Namespace, &r.Name, &r.Campaign, &r.Series, &r.Pool, &r.Tuning,
			&started, &finished, &r.Location, &nodes); err != nil {
			return nil, err
		}
		r.Started, r.Finished = time.Unix(0, started).UTC(), time.Unix(0, finished).UTC()
		if err := json.Unmarshal([]byte(nodes), &r.Nodes); err != nil {
			return nil, fmt.Errorf("run %s: its nodes are not JSON: %w", r.UID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// eachSampleOf hands f the run's samples, in order.
func (db *DB) eachSampleOf(ctx context.Context, run *Run, f func(StoredSample) error) error {
	rows, err := db.sql.QueryContext(ctx, db.rebind(`SELECT s.seq, s.config, c.test, c.metric, c.unit,
		s.value, s.repetition, s.warmup, s.ts_ns, s.labels
		FROM samples s JOIN configs c ON c.config = s.config WHERE s.run_uid = ? ORDER BY s.seq`), run.UID)
	if err != nil {
		return fmt.Errorf("reading the samples of run %s: %w", run.UID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			s          = StoredSample{Run: run}
			warmup     int
			ts         int64
			labelsJSON string
		)
		if err := rows.Scan(&s.Seq, &s.ConfigID, &s.Test, &s.Metric, &s.Unit, &s.Value, &s.Repetition, &warmup, &ts, &labelsJSON); err != nil {
			return err
		}
		s.Warmup = warmup != 0
		if ts != 0 {
			s.Time = time.Unix(0, ts).UTC()
		}
		if err := json.Unmarshal([]byte(labelsJSON), &s.Labels); err != nil {
			return fmt.Errorf("run %s, sample %d: its labels are not a JSON object: %w", run.UID, s.Seq, err)
		}
		if err := f(s); err != nil {
			return err
		}
	}
	return rows.Err()
}
