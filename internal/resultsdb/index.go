package resultsdb

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

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
	Started, Finished    time.Time
	// Location is the run's prefix in the artifact store ("ns/Kind/name/uid/").
	Location string
	Nodes    []results.NodeInfo
}

// SampleSource hands each of a run's samples to add, in order, as it reads
// them; an error from add stops it.
type SampleSource func(add func(results.Sample) error) error

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
	run.Series = cmp.Or(run.Series, run.Name)
	err = db.inConnTx(ctx, func(conn *sql.Conn, tx *sql.Tx) error {
		var err error
		added, err = db.indexTx(ctx, conn, tx, run, string(nodes), samples)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("indexing %s %s/%s (%s): %w", run.Kind, run.Namespace, run.Name, run.UID, err)
	}
	return added, nil
}

// indexTx is Index in tx, which runs on conn.
func (db *DB) indexTx(ctx context.Context, conn *sql.Conn, tx *sql.Tx, run Run, nodes string, samples SampleSource) (bool, error) {
	res, err := tx.ExecContext(ctx, db.rebind(`INSERT INTO runs
		(run_uid, kind, namespace, name, campaign, series, pool, tuning, started_ns, finished_ns, location, nodes, indexed_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_uid) DO NOTHING`),
		run.UID, run.Kind, run.Namespace, run.Name, run.Campaign, run.Series, run.Pool, run.Tuning,
		run.Started.UnixNano(), run.Finished.UnixNano(), run.Location, nodes, time.Now().UnixNano())
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err // there already
	}
	seen, err := db.insertSamples(ctx, tx, db.rowWriter(conn, tx, run.UID), run, samples)
	if err != nil {
		return false, err
	}
	// What the run did not say, its samples do: a campaign, or (a
	// benchmark outside a campaign) its pool and tuning.
	return true, db.exec(ctx, tx, `UPDATE runs SET campaign = ?, pool = ?, tuning = ? WHERE run_uid = ?`,
		cmp.Or(run.Campaign, seen[results.LabelCampaign]),
		cmp.Or(run.Pool, seen[results.LabelPool]), cmp.Or(run.Tuning, seen[results.LabelTuning]), run.UID)
}

// insertSamples writes the run's samples through w, and each configuration
// they belong to, and returns the first campaign, pool and tuning labels
// they carry.
func (db *DB) insertSamples(ctx context.Context, tx *sql.Tx, w rowWriter, run Run, samples SampleSource) (map[string]string, error) {
	defer w.close()
	var (
		seen    = map[string]string{}
		configs = map[string]string{} // sampleKey -> id
		seq     int
	)
	err := samples(func(s results.Sample) error {
		s = bounded(s)
		for _, k := range []string{results.LabelCampaign, results.LabelPool, results.LabelTuning} {
			if v := s.Labels[k]; v != "" && seen[k] == "" {
				seen[k] = v
			}
		}
		key := DefaultIdentity.sampleKey(s)
		id, ok := configs[key]
		if !ok {
			c := DefaultIdentity.Of(run, s)
			id = c.ID()
			if err := db.addConfig(ctx, tx, id, c, run); err != nil {
				return err
			}
			configs[key] = id
		}
		labels, err := json.Marshal(s.Labels)
		if err != nil {
			return err
		}
		if s.Labels == nil {
			labels = []byte("{}")
		}
		var ts int64
		if !s.Timestamp.IsZero() {
			ts = s.Timestamp.UnixNano()
		}
		warmup := 0
		if s.Labels[results.LabelWarmup] == "true" {
			warmup = 1
		}
		seq++
		return w.add(ctx, sampleRow{seq: seq, config: id, value: s.Value, repetition: s.Repetition,
			warmup: warmup, ts: ts, labels: string(labels)})
	})
	if err != nil {
		return nil, err
	}
	return seen, w.flush(ctx)
}

// addConfig records a configuration (once for every run) and that the run
// has figures of it.
func (db *DB) addConfig(ctx context.Context, tx *sql.Tx, id string, c Config, run Run) error {
	labels, err := json.Marshal(c.Labels)
	if err != nil {
		return err
	}
	if err := db.exec(ctx, tx, `INSERT INTO configs (config, kind, namespace, series, pool, tuning, test, metric, unit, labels)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (config) DO NOTHING`,
		id, c.Kind, c.Namespace, c.Series, c.Pool, c.Tuning, c.Test, c.Metric, c.Unit, string(labels)); err != nil {
		return err
	}
	return db.exec(ctx, tx, `INSERT INTO config_runs (config, run_uid, finished_ns) VALUES (?, ?, ?)`, id, run.UID, run.Finished.UnixNano())
}

// Bounds of what one sample stores: its tool's parser and the benchmark's
// labels set them, and a hostile or broken one must not fill the database.
const (
	maxLabels     = 128
	maxTextBytes  = 1024
	truncatedMark = "…"
)

// bounded is s with at most maxLabels labels and every string at most
// maxTextBytes, cut at a rune boundary and marked. The labels kept are those
// a history reads first (the identity's, pool, tuning, campaign, node,
// warm-up), then the others by key.
func bounded(s results.Sample) results.Sample {
	s.Test, s.Metric, s.Unit = clip(s.Test), clip(s.Metric), clip(s.Unit)
	within := len(s.Labels) <= maxLabels
	for k, v := range s.Labels {
		within = within && len(k) <= maxTextBytes && len(v) <= maxTextBytes && !strings.Contains(k+v, "\x00")
	}
	if within {
		return s
	}
	keys := slices.SortedFunc(maps.Keys(s.Labels), func(a, b string) int {
		return cmp.Or(cmp.Compare(labelRank(a), labelRank(b)), cmp.Compare(a, b))
	})
	if len(keys) > maxLabels {
		keys = keys[:maxLabels]
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		out[clip(k)] = clip(s.Labels[k])
	}
	s.Labels = out
	return s
}

func clip(v string) string {
	// PostgreSQL's text holds no NUL; a name with one is garbage anyway.
	v = strings.ReplaceAll(v, "\x00", "")
	if len(v) <= maxTextBytes {
		return v
	}
	cut := maxTextBytes - len(truncatedMark)
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + truncatedMark
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
		for _, table := range []string{"samples", "config_runs", "acknowledgements", "runs"} {
			if err := db.exec(ctx, tx, `DELETE FROM `+table+` WHERE run_uid = ?`, uid); err != nil {
				return err
			}
		}
		return nil
	})
}

// labelRank is 0 for the labels a history reads, 1 for the others.
func labelRank(k string) int {
	switch {
	case isIdentity(k), k == results.LabelPool, k == results.LabelTuning, k == results.LabelCampaign,
		k == results.LabelNode, k == results.LabelWarmup, k == results.LabelAttempt:
		return 0
	}
	return 1
}
