package resultsdb

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// Run is what the database keeps of a run besides its samples.
type Run struct {
	UID       string
	Kind      string
	Namespace string
	Name      string
	// Campaign is the campaign (Argo Workflow) the run was a cell of, or "";
	// Index takes it from the samples' campaign label when empty.
	Campaign string
	// Series is the benchmark's name as its author wrote it: a campaign
	// cell's entry name (a cell's object is named after its Workflow), else
	// the object's name. Pool and Tuning are the campaign's pool and tuning
	// names, else the benchmark's pool and tuning.
	Series, Pool, Tuning string
	Started, Finished time.Time
	// Location is the run's prefix in the artifact store ("ns/Kind/name/uid/").
	Location string
	Nodes    []results.NodeInfo
}

// SampleSource hands each of a run's samples to add, in order, as it reads
// them; an error from add stops it.
type SampleSource func(add func(results.Sample) error) error

// insertBatch is how many samples one INSERT carries (9 parameters each:
// well under SQLite's 32 766 and PostgreSQL's 65 535).
const insertBatch = 500

// Index adds a finished run and its samples in one transaction, and reports
// whether it added them: a run already there (same UID) is left as it is, so
// indexing again, from the manager and from a backfill at once, adds nothing.
func (db *DB) Index(ctx context.Context, run Run, samples SampleSource) (added bool, err error) {
	if run.UID == "" || run.Kind == "" || run.Name == "" {
		return false, fmt.Errorf("indexing a run: uid %q, kind %q and name %q must all be set", run.UID, run.Kind, run.Name)
	}
	nodes, err := json.Marshal(run.Nodes)
	if err != nil {
		return false, err
	}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.rebind(`INSERT INTO runs
			(run_uid, kind, namespace, name, campaign, series, pool, tuning, started_ns, finished_ns, location, nodes, indexed_ns)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_uid) DO NOTHING`),
			run.UID, run.Kind, run.Namespace, run.Name, run.Campaign, cmp.Or(run.Series, run.Name), run.Pool, run.Tuning,
			run.Started.UnixNano(), run.Finished.UnixNano(), run.Location, string(nodes), time.Now().UnixNano())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // there already
		}
		added = true
		seen, err := db.insertSamples(ctx, tx, run, samples)
		if err != nil {
			return err
		}
		// What the run did not say, its samples do: a campaign, or (a
		// benchmark outside a campaign) its pool and tuning.
		return db.exec(ctx, tx, `UPDATE runs SET campaign = ?, pool = ?, tuning = ? WHERE run_uid = ?`,
			cmp.Or(run.Campaign, seen[results.LabelCampaign]),
			cmp.Or(run.Pool, seen[results.LabelPool]), cmp.Or(run.Tuning, seen[results.LabelTuning]), run.UID)
	})
	if err != nil {
		return false, fmt.Errorf("indexing %s %s/%s (%s): %w", run.Kind, run.Namespace, run.Name, run.UID, err)
	}
	return added, nil
}

// insertSamples inserts the run's samples in batches and returns the first
// campaign, pool and tuning labels they carry.
func (db *DB) insertSamples(ctx context.Context, tx *sql.Tx, run Run, samples SampleSource) (map[string]string, error) {
	var (
		seen   = map[string]string{}
		batch  []any
		n, seq int
	)
	flush := func() error {
		if n == 0 {
			return nil
		}
		q := `INSERT INTO samples (run_uid, seq, test, metric, value, unit, repetition, ts_ns, labels) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", n), ", ")
		_, err := tx.ExecContext(ctx, db.rebind(q), batch...)
		batch, n = batch[:0], 0
		return err
	}
	err := samples(func(s results.Sample) error {
		labels, err := json.Marshal(s.Labels)
		if err != nil {
			return err
		}
		if s.Labels == nil {
			labels = []byte("{}")
		}
		for _, k := range []string{results.LabelCampaign, results.LabelPool, results.LabelTuning} {
			if v := s.Labels[k]; v != "" && seen[k] == "" {
				seen[k] = v
			}
		}
		var ts int64
		if !s.Timestamp.IsZero() {
			ts = s.Timestamp.UnixNano()
		}
		seq++
		batch = append(batch, run.UID, seq, s.Test, s.Metric, s.Value, s.Unit, s.Repetition, ts, string(labels))
		if n++; n == insertBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return seen, flush()
}

// Has reports whether the run is indexed.
func (db *DB) Has(ctx context.Context, uid string) (bool, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, db.rebind(`SELECT COUNT(*) FROM runs WHERE run_uid = ?`), uid).Scan(&n)
	return n > 0, err
}

// Forget removes a run and its samples (a run deleted from the store).
func (db *DB) Forget(ctx context.Context, uid string) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := db.exec(ctx, tx, `DELETE FROM samples WHERE run_uid = ?`, uid); err != nil {
			return err
		}
		return db.exec(ctx, tx, `DELETE FROM runs WHERE run_uid = ?`, uid)
	})
}
