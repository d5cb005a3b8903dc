// Package historycheck checks a run's headline figures against their
// histories in the results database (package regress on package
// resultsdb's histories): the one verdict the manager's Regressed
// condition, the history page, the CLI and the campaign report show.
package historycheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/regress"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// What a check reads: each headline figure's configuration (at most
// MaxConfigs of them), its newest Runs runs.
const (
	Runs       = 50
	MaxConfigs = 200
)

// Reader reads a run's histories and their acknowledged changes
// (*resultsdb.DB).
type Reader interface {
	RunHistories(ctx context.Context, uid string, runs int, keep func(resultsdb.Config) bool, maxConfigs int) ([]resultsdb.History, error)
	Acknowledged(ctx context.Context, c resultsdb.Config) ([]string, error)
}

// Finding is one headline figure at the run: its history up to the run,
// and its verdict.
type Finding struct {
	History resultsdb.History `json:"history"`
	Verdict regress.Verdict   `json:"verdict"`
}

// Result is a run checked against its histories.
type Result struct {
	RunUID string `json:"run_uid"`
	// Verdict is the run's: its worst figure's, or its figures' joint one.
	Verdict regress.Verdict `json:"verdict"`
	// Message says it in words, naming figures and runs.
	Message string `json:"message"`
	// Groups is how many groups of figures were checked together.
	Groups   int       `json:"groups"`
	Findings []Finding `json:"findings"`
}

// Run checks the run's headline figures, each against the earlier runs of
// its configuration since its newest acknowledged change, together
// (regress.CheckBenchmark): a job's IOPS and bandwidth are one group
// (Group).
func Run(ctx context.Context, r Reader, uid string) (Result, error) {
	hs, err := r.RunHistories(ctx, uid, Runs, resultsdb.Config.Figure, MaxConfigs)
	if err != nil {
		return Result{}, fmt.Errorf("reading the run's histories: %w", err)
	}
	res := Result{RunUID: uid}
	// An acknowledged change counts for the figure's whole group (the
	// bandwidth of an acknowledged IOPS).
	acked := map[string][]string{}
	for _, h := range hs {
		a, err := r.Acknowledged(ctx, h.Config)
		if err != nil {
			return Result{}, err
		}
		acked[Group(h.Config)] = append(acked[Group(h.Config)], a...)
	}
	var figs []regress.Figure
	for _, h := range hs {
		i := slices.IndexFunc(h.Points, func(p resultsdb.Point) bool { return p.RunUID == uid })
		if i < 0 {
			continue
		}
		h.Points = sinceAcknowledged(h.Points[:i+1], acked[Group(h.Config)]) // the run against those before it
		series := make([]float64, len(h.Points))
		for j, p := range h.Points {
			series[j] = p.Median
		}
		figs = append(figs, regress.Figure{Series: series, LowerIsBetter: results.LowerIsBetter(h.Config.Metric), Group: Group(h.Config)})
		res.Findings = append(res.Findings, Finding{History: h})
	}
	b := regress.CheckBenchmark(figs, regress.Options{})
	for i := range res.Findings {
		res.Findings[i].Verdict = b.Figures[i]
	}
	res.Verdict, res.Groups = b.Verdict, b.Groups
	res.Message = res.describe(b)
	return res, nil
}

// sinceAcknowledged are the points from the newest acknowledged run on: a
// change a person has seen is the new normal, not reported again.
func sinceAcknowledged(points []resultsdb.Point, acked []string) []resultsdb.Point {
	for i := len(points) - 1; i > 0; i-- {
		if slices.Contains(acked, points[i].RunUID) {
			return points[i:]
		}
	}
	return points
}

// Group is the key of the figures that measure the same thing: one
// configuration but for the metric, where a fio job's IOPS and bandwidth
// of one direction (read_iops, read_bw) are one.
func Group(c resultsdb.Config) string {
	c.Metric = strings.TrimSuffix(strings.TrimSuffix(c.Metric, "_iops"), "_bw")
	switch c.Metric {
	case "iops", "bw":
		c.Metric = ""
	}
	c.Unit = ""
	return c.Key()
}

// Finding is the finding of the configuration c, if the run has it.
func (r Result) Finding(c resultsdb.Config) (Finding, bool) {
	key := c.Key()
	i := slices.IndexFunc(r.Findings, func(f Finding) bool { return f.History.Config.Key() == key })
	if i < 0 {
		return Finding{}, false
	}
	return r.Findings[i], true
}

// describe says the verdict, then how many figures were checked and what
// each found.
func (r Result) describe(b regress.Benchmark) string {
	if len(r.Findings) == 0 {
		return "the run has no headline figure in the results database"
	}
	run := func(points []resultsdb.Point) func(int) string {
		return func(i int) string {
			if i < 0 || i >= len(points) {
				return "?"
			}
			p := points[i]
			return p.Name + " " + resultsdb.ShortUID(p.RunUID) + " (" + p.Finished.Format("2006-01-02 15:04") + ")"
		}
	}
	names := run(r.Findings[0].History.Points)
	if b.Worst >= 0 {
		names = run(r.Findings[b.Worst].History.Points)
	}
	counts := map[regress.Change]int{}
	for _, f := range r.Findings {
		counts[f.Verdict.Change]++
	}
	what := b.Describe(func(i int) string { return Name(r.Findings[i].History.Config) }, names)
	tally := fmt.Sprintf("%d headline figure(s) in %d group(s)", len(r.Findings), r.Groups)
	var parts []string
	for _, c := range []regress.Change{regress.Regressed, regress.Improved, regress.Outlier, regress.Steady, regress.TooFew} {
		if counts[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[c], strings.ToLower(string(c))))
		}
	}
	return what + "; " + tally + ": " + strings.Join(parts, ", ")
}

// Name names a figure: its test, metric and message size.
func Name(c resultsdb.Config) string {
	s := c.Test + " " + c.Metric
	if v := c.Labels[results.LabelMsgSize]; v != "" {
		s += " at " + v + " B"
	}
	return s
}
