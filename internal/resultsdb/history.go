package resultsdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// Query selects figures by what a person knows of them. Metric is needed;
// every other field left empty matches anything.
type Query struct {
	Kind, Namespace, Series, Test, Metric string
	// Labels must all match the samples' labels (any label, not only the
	// identity's: node=n1 keeps one node's figures).
	Labels map[string]string
	// Since drops runs finished before it.
	Since time.Time
	// Runs keeps each configuration's newest runs (DefaultRuns when 0).
	Runs int
	// Identity tells the configurations apart.
	Identity Identity
	// RunUID, for a server's queries, asks for the histories of one run's
	// configurations (RunHistories) instead.
	RunUID string
}

// DefaultRuns is how many of a configuration's newest runs a query keeps.
const DefaultRuns = 50

// MaxQueryRows bounds the samples one query reads: a query wider than that
// is refused with what to narrow, never read into memory.
const MaxQueryRows = 2_000_000

// History is a configuration's runs, oldest first.
type History struct {
	Config Config  `json:"config"`
	Points []Point `json:"points"`
}

// Point is one run's figure of the configuration: the statistics of its
// counted repetitions (warm-ups left out), each repetition's figure the
// run's own (results.Combine: a distributed fio's nodes summed).
type Point struct {
	RunUID   string    `json:"run_uid"`
	Name     string    `json:"name"`
	Campaign string    `json:"campaign,omitempty"`
	Finished time.Time `json:"finished"`
	Values   []float64 `json:"values"`
	// reps are the repetitions of Values' samples, before Combine.
	reps   []int
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// MaxConfigs bounds the configurations one query reads.
const MaxConfigs = 1000

// History reads the figures q selects, grouped by configuration (sorted by
// name) and run: each configuration's newest q.Runs runs, oldest first.
func (db *DB) History(ctx context.Context, q Query) ([]History, error) {
	if q.Metric == "" {
		return nil, fmt.Errorf("a history needs a metric (e.g. read_iops, latency_us)")
	}
	configs, err := db.matchingConfigs(ctx, q)
	if err != nil {
		return nil, err
	}
	keep := q.Runs
	if keep <= 0 {
		keep = DefaultRuns
	}
	var out []History
	rows := 0
	for _, c := range configs {
		hs, n, err := db.configHistory(ctx, c, q, keep, MaxQueryRows-rows)
		if err != nil {
			return nil, err
		}
		rows += n
		out = append(out, hs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Config.String() < out[j].Config.String() })
	return out, nil
}

type storedConfig struct {
	id string
	Config
}

// matchingConfigs are the configurations of q's metric, test, kind,
// namespace and series whose identity has q's labels (a label outside the
// identity is matched sample by sample). pool= and tuning= match the
// configuration's pool and tuning: a campaign's own names.
func (db *DB) matchingConfigs(ctx context.Context, q Query) ([]storedConfig, error) {
	where, args := []string{"metric = ?"}, []any{q.Metric}
	for _, f := range []struct{ col, v string }{
		{"test", q.Test}, {"kind", q.Kind}, {"namespace", q.Namespace}, {"series", q.Series},
		{"pool", q.Labels[results.LabelPool]}, {"tuning", q.Labels[results.LabelTuning]},
	} {
		if f.v != "" {
			where, args = append(where, f.col+" = ?"), append(args, f.v)
		}
	}
	rows, err := db.sql.QueryContext(ctx, db.rebind(`SELECT config, kind, namespace, series, pool, tuning, test, metric, unit, labels
		FROM configs WHERE `+strings.Join(where, " AND ")), args...)
	if err != nil {
		return nil, fmt.Errorf("reading the configurations: %w", err)
	}
	defer rows.Close()
	var out []storedConfig
	for rows.Next() {
		var (
			c      storedConfig
			labels string
		)
		if err := rows.Scan(&c.id, &c.Kind, &c.Namespace, &c.Series, &c.Pool, &c.Tuning, &c.Test, &c.Metric, &c.Unit, &labels); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(labels), &c.Labels); err != nil {
			return nil, fmt.Errorf("configuration %s: its labels are not a JSON object: %w", c.id, err)
		}
		if !identityMatches(c.Config, q.Labels) {
			continue
		}
		if len(out) == MaxConfigs {
			return nil, fmt.Errorf("the query matches more than %d configurations: name a test, a benchmark, a namespace or labels", MaxConfigs)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// identityMatches says whether c has want's identity labels.
func identityMatches(c Config, want map[string]string) bool {
	for k, v := range want {
		if isIdentity(k) && c.Labels[k] != v {
			return false
		}
	}
	return true
}

func isIdentity(label string) bool {
	return strings.HasPrefix(label, results.LabelAxisPrefix) || slices.Contains(DefaultIdentity, label)
}

// configHistory reads a configuration's newest keep runs, split by
// q.Identity.Extra, reading at most budget samples; it returns how many it
// read.
func (db *DB) configHistory(ctx context.Context, c storedConfig, q Query, keep, budget int) ([]History, int, error) {
	where, args := "config = ?", []any{c.id}
	if !q.Since.IsZero() {
		where, args = where+" AND finished_ns >= ?", append(args, q.Since.UnixNano())
	}
	uids, err := db.strings(ctx, `SELECT run_uid FROM config_runs WHERE `+where+` ORDER BY finished_ns DESC, run_uid DESC LIMIT ?`, append(args, keep)...)
	if err != nil || len(uids) == 0 {
		return nil, 0, err
	}
	// Sample labels are read only where a label outside the identity
	// filters, or a user's identity label splits.
	var sampleFilter map[string]string
	for k, v := range q.Labels {
		if !isIdentity(k) && k != results.LabelPool && k != results.LabelTuning {
			if sampleFilter == nil {
				sampleFilter = map[string]string{}
			}
			sampleFilter[k] = v
		}
	}
	needLabels := len(sampleFilter) > 0 || len(q.Identity.Extra) > 0
	rows, err := db.sql.QueryContext(ctx, db.rebind(`SELECT r.run_uid, r.name, r.campaign, r.finished_ns, s.value, s.repetition, s.labels
		FROM samples s JOIN runs r ON r.run_uid = s.run_uid
		WHERE s.config = ? AND s.warmup = 0 AND s.run_uid IN (`+placeholders(len(uids))+`)
		ORDER BY r.finished_ns, r.run_uid, s.seq`), append([]any{c.id}, anys(uids)...)...)
	if err != nil {
		return nil, 0, fmt.Errorf("reading the history of %s: %w", c.Config, err)
	}
	defer rows.Close()
	byKey := map[string]*History{}
	var order []string
	n := 0
	for rows.Next() {
		if n++; n > budget {
			return nil, n, fmt.Errorf("the query reads more than %d samples: name a test, a benchmark or labels, or a later --since", MaxQueryRows)
		}
		var (
			p         Point
			finished  int64
			value     float64
			rep       int
			labelJSON string
		)
		if err := rows.Scan(&p.RunUID, &p.Name, &p.Campaign, &finished, &value, &rep, &labelJSON); err != nil {
			return nil, n, err
		}
		cfg := c.Config
		if needLabels {
			var labels map[string]string
			if err := json.Unmarshal([]byte(labelJSON), &labels); err != nil {
				return nil, n, fmt.Errorf("run %s: its labels are not a JSON object: %w", p.RunUID, err)
			}
			if !matches(labels, sampleFilter) {
				continue
			}
			cfg = withExtra(c.Config, labels, q.Identity.Extra)
		}
		key := cfg.Key()
		h := byKey[key]
		if h == nil {
			h = &History{Config: cfg}
			byKey[key] = h
			order = append(order, key)
		}
		if last := len(h.Points) - 1; last < 0 || h.Points[last].RunUID != p.RunUID {
			p.Finished = time.Unix(0, finished).UTC()
			h.Points = append(h.Points, p)
		}
		pt := &h.Points[len(h.Points)-1]
		pt.Values, pt.reps = append(pt.Values, value), append(pt.reps, rep)
	}
	if err := rows.Err(); err != nil {
		return nil, n, err
	}
	out := make([]History, 0, len(order))
	for _, k := range order {
		h := byKey[k]
		for i := range h.Points {
			h.Points[i].summarize(h.Config.Metric)
		}
		out = append(out, *h)
	}
	return out, n, nil
}

// withExtra is c with the extra identity labels the sample has.
func withExtra(c Config, labels map[string]string, extra []string) Config {
	if len(extra) == 0 {
		return c
	}
	c.Labels = maps.Clone(c.Labels)
	for _, k := range extra {
		if v, ok := labels[k]; ok {
			c.Labels[k] = v
		}
	}
	return c
}

func matches(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (db *DB) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, db.rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// summarize folds the samples of each repetition into the run's figure
// (results.Combine: several nodes' IOPS add up) and computes the
// statistics over the repetitions.
func (p *Point) summarize(metric string) {
	byRep := map[int][]float64{}
	var order []int
	for i, v := range p.Values {
		r := p.reps[i]
		if _, ok := byRep[r]; !ok {
			order = append(order, r)
		}
		byRep[r] = append(byRep[r], v)
	}
	slices.Sort(order)
	p.Values = p.Values[:0]
	for _, r := range order {
		p.Values = append(p.Values, results.Combine(metric, byRep[r]))
	}
	p.reps = nil
	st := results.Compute(p.Values)
	p.N, p.Median, p.Mean, p.StdDev, p.Min, p.Max = st.N, st.Median, st.Mean, st.Stddev, st.Min, st.Max
}

// ShortUID is the start of a run's UID, as people tell runs apart
// (benchwright run's "local-" and benchwright index's "import-" left out).
func ShortUID(uid string) string {
	uid = strings.TrimPrefix(strings.TrimPrefix(uid, "local-"), "import-")
	if len(uid) > 8 {
		return uid[:8]
	}
	return uid
}

// RunHistories are the histories of the configurations the run has figures
// of that keep accepts (the first maxConfigs of them by test and metric):
// each configuration's newest runs runs, the run among them.
func (db *DB) RunHistories(ctx context.Context, uid string, runs int, keep func(Config) bool, maxConfigs int) ([]History, error) {
	rows, err := db.sql.QueryContext(ctx, db.rebind(`SELECT c.config, c.kind, c.namespace, c.series, c.pool, c.tuning,
		c.test, c.metric, c.unit, c.labels FROM config_runs cr JOIN configs c ON c.config = cr.config
		WHERE cr.run_uid = ? ORDER BY c.test, c.metric, c.config`), uid)
	if err != nil {
		return nil, fmt.Errorf("reading the run's configurations: %w", err)
	}
	var configs []storedConfig
	for rows.Next() {
		var (
			c      storedConfig
			labels string
		)
		if err := rows.Scan(&c.id, &c.Kind, &c.Namespace, &c.Series, &c.Pool, &c.Tuning, &c.Test, &c.Metric, &c.Unit, &labels); err != nil {
			_ = rows.Close()
			return nil, err
		}
		if err := json.Unmarshal([]byte(labels), &c.Labels); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("configuration %s: its labels are not a JSON object: %w", c.id, err)
		}
		if keep(c.Config) && len(configs) < maxConfigs {
			configs = append(configs, c)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	var out []History
	budget := MaxQueryRows
	for _, c := range configs {
		hs, n, err := db.configHistory(ctx, c, Query{}, runs, budget)
		if err != nil {
			return nil, err
		}
		budget -= n
		out = append(out, hs...)
	}
	return out, nil
}
