package resultsdb

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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
// counted repetitions' samples (warm-ups left out).
type Point struct {
	RunUID   string    `json:"run_uid"`
	Name     string    `json:"name"`
	Campaign string    `json:"campaign,omitempty"`
	Finished time.Time `json:"finished"`
	Values   []float64 `json:"values"`
	N        int       `json:"n"`
	Median   float64   `json:"median"`
	Mean     float64   `json:"mean"`
	StdDev   float64   `json:"stddev"`
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
}

type runRow struct {
	uid, kind, namespace, name, campaign, series, pool, tuning string
	finished                                                   int64
}

// History reads the figures q selects, grouped by configuration (sorted by
// name) and run.
func (db *DB) History(ctx context.Context, q Query) ([]History, error) {
	if q.Metric == "" {
		return nil, fmt.Errorf("a history needs a metric (e.g. read_iops, latency_us)")
	}
	where, args := []string{"s.metric = ?"}, []any{q.Metric}
	for _, f := range []struct{ col, v string }{
		{"s.test", q.Test}, {"r.kind", q.Kind}, {"r.namespace", q.Namespace}, {"r.series", q.Series},
	} {
		if f.v != "" {
			where, args = append(where, f.col+" = ?"), append(args, f.v)
		}
	}
	if !q.Since.IsZero() {
		where, args = append(where, "r.finished_ns >= ?"), append(args, q.Since.UnixNano())
	}
	rows, err := db.sql.QueryContext(ctx, db.rebind(`SELECT r.run_uid, r.kind, r.namespace, r.name, r.campaign,
		r.series, r.pool, r.tuning, r.finished_ns, s.test, s.unit, s.value, s.labels
		FROM samples s JOIN runs r ON r.run_uid = s.run_uid
		WHERE `+strings.Join(where, " AND ")+` ORDER BY r.finished_ns, r.run_uid, s.seq`), args...)
	if err != nil {
		return nil, fmt.Errorf("reading the history: %w", err)
	}
	defer rows.Close()
	byConfig := map[string]*History{}
	byRun := map[string]map[string]*Point{} // config key -> run uid -> point
	n := 0
	for rows.Next() {
		if n++; n > MaxQueryRows {
			return nil, fmt.Errorf("the query reads more than %d samples: name a test, a series or labels, or a later --since", MaxQueryRows)
		}
		var (
			r                     runRow
			test, unit, labelJSON string
			value                 float64
		)
		if err := rows.Scan(&r.uid, &r.kind, &r.namespace, &r.name, &r.campaign, &r.series, &r.pool, &r.tuning,
			&r.finished, &test, &unit, &value, &labelJSON); err != nil {
			return nil, err
		}
		var labels map[string]string
		if err := json.Unmarshal([]byte(labelJSON), &labels); err != nil {
			return nil, fmt.Errorf("run %s: its labels are not a JSON object: %w", r.uid, err)
		}
		if labels[results.LabelWarmup] == "true" || !matches(labels, q.Labels) {
			continue
		}
		c := q.Identity.config(r, test, q.Metric, unit, labels)
		key := c.Key()
		h := byConfig[key]
		if h == nil {
			h = &History{Config: c}
			byConfig[key], byRun[key] = h, map[string]*Point{}
		}
		p := byRun[key][r.uid]
		if p == nil {
			h.Points = append(h.Points, Point{RunUID: r.uid, Name: r.name, Campaign: r.campaign, Finished: time.Unix(0, r.finished).UTC()})
			p = &h.Points[len(h.Points)-1]
			byRun[key][r.uid] = p
		}
		p.Values = append(p.Values, value)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the history: %w", err)
	}
	keep := q.Runs
	if keep <= 0 {
		keep = DefaultRuns
	}
	out := make([]History, 0, len(byConfig))
	for _, h := range byConfig {
		if len(h.Points) > keep {
			h.Points = h.Points[len(h.Points)-keep:]
		}
		for i := range h.Points {
			h.Points[i].summarize()
		}
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Config.String() < out[j].Config.String() })
	return out, nil
}

func matches(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (p *Point) summarize() {
	v := slices.Clone(p.Values)
	slices.Sort(v)
	p.N, p.Min, p.Max = len(v), v[0], v[len(v)-1]
	if len(v)%2 == 1 {
		p.Median = v[len(v)/2]
	} else {
		p.Median = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	p.Mean = sum / float64(len(v))
	if len(v) > 1 {
		var ss float64
		for _, x := range v {
			ss += (x - p.Mean) * (x - p.Mean)
		}
		p.StdDev = math.Sqrt(ss / float64(len(v)-1))
	}
}
