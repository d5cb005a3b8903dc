package page

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// Options shape a report.
type Options struct {
	// Title heads the report (default "benchwright report").
	Title string
	// Baseline is the index of the run the others are compared with, in a
	// report without dimensions (see Baselines).
	Baseline int
	// Baselines name a dimension's baseline value ({"pool": "c2"}); a
	// dimension without one is divided by its first value.
	Baselines map[string]string
	// Campaign, when set, places the runs in a campaign's dimensions, in
	// the order it lists them.
	Campaign *compare.Campaign
	// All puts every metric in the comparison, not only the headline ones;
	// the figures tables always hold every metric.
	All bool
	// Ratio is how the comparison divides (default RatioSpeedup).
	Ratio compare.Ratio
	// MaxCV marks noisier figures, in percent (default DefaultMaxCV).
	MaxCV float64
	// Cells are a campaign's benchmarks, cell by cell, with how each ended.
	Cells []compare.Cell
	// Lead are the dimensions whose comparisons come first, in this order
	// (a campaign's answer: those its baselines name); the rest follow in
	// the dimensions' order.
	Lead []string
	// Trends are the runs' figures in their histories (the results
	// database): each run of their configurations over time.
	Trends []compare.Trend
}

// Report is what the renderers draw: runs, their figures, the comparisons.
type Report struct {
	Title string
	Runs  []compare.Run       // in the campaign's order, when there is one
	Rows  []compare.RunFigure // every figure of every run
	// Dimensions are the ways the runs differ; Along compares them along
	// each that varies, and AlongNote says in words why there is no such
	// comparison, or what is wrong with the baselines.
	Dimensions []compare.Dimension
	Along      []compare.Along
	AlongNote  string
	Baseline   int
	Comparison []compare.Row   // against Runs[Baseline], where it makes sense (see New); else nil
	Fits       []compare.Fit   // figures against the numeric labels the runs differ in
	Cells      []compare.Cell  // a campaign's benchmarks, cell by cell
	Trends     []compare.Trend // the runs' figures in their histories
	// SharedMachines are the machines several pools of the runs ran on:
	// the report's head says so (sharedMachinesNote).
	SharedMachines []compare.SharedMachine
}

// New builds the report of runs. Runs are compared along each dimension
// (see Along); the single comparison against Runs[opts.Baseline] is kept
// outside a campaign where no dimension compares anything (a plain set of
// runs), or where the runs are a tuning ladder (each step against the
// first). A baseline that names no dimension or value is said in AlongNote,
// so that a campaign still gets its report; Baselines checks them first.
func New(runs []compare.Run, opts Options) (*Report, error) {
	if len(runs) == 0 {
		return nil, compare.ErrNoRuns
	}
	if opts.Baseline < 0 || opts.Baseline >= len(runs) {
		return nil, fmt.Errorf("baseline %d out of range: %d run(s)", opts.Baseline, len(runs))
	}
	baseline := runs[opts.Baseline].Name
	runs = withCampaignPlaces(inCampaignOrder(runs, opts.Campaign), opts.Campaign)
	r := &Report{Title: opts.Title, Runs: runs, Rows: compare.Table(runs, true), Fits: compare.Fits(runs), Cells: compare.WithBeside(opts.Cells, runs), Trends: opts.Trends,
		SharedMachines: compare.SharedMachines(runs)}
	r.Baseline = slices.IndexFunc(runs, func(run compare.Run) bool { return run.Name == baseline })
	if r.Title == "" {
		r.Title = "benchwright report"
	}
	copts := compare.Options{All: opts.All, Ratio: opts.Ratio, MaxCV: opts.MaxCV}
	dims, values := compare.DimensionsOf(runs, opts.Campaign)
	dims, err := compare.WithBaselines(dims, opts.Baselines)
	r.Dimensions = dims
	if err != nil {
		r.AlongNote = "No comparison along the dimensions: " + err.Error() + "."
	} else if r.Along, err = compare.AlongAll(runs, dims, values, opts.Cells, copts); err != nil {
		return nil, err
	} else if len(r.Along) == 0 && opts.Campaign != nil {
		r.AlongNote = "Nothing to compare: no dimension of the campaign varies among the runs (" + dimValues(dims) + ")."
	}
	slices.SortStableFunc(r.Along, func(a, b compare.Along) int { return leadRank(opts.Lead, a) - leadRank(opts.Lead, b) })
	_, ladder := compare.LadderOf(runs)
	if len(runs) > 1 && opts.Campaign == nil && (len(r.Along) == 0 || ladder != nil) {
		if r.Comparison, err = compare.With(runs, r.Baseline, copts); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Baselines checks baselines against the dimensions of runs (of campaign c,
// when set), as New finds them: an error names each baseline whose
// dimension or value the runs do not have, and those they do.
func Baselines(runs []compare.Run, c *compare.Campaign, baselines map[string]string) error {
	dims, _ := compare.DimensionsOf(inCampaignOrder(runs, c), c)
	_, err := compare.WithBaselines(dims, baselines)
	return err
}

// inCampaignOrder are runs ordered as the campaign lists their dimensions'
// values (pools, then tunings, then benchmarks); runs it does not place
// last, each in the order it came.
func inCampaignOrder(runs []compare.Run, c *compare.Campaign) []compare.Run {
	if c == nil {
		return runs
	}
	rank := func(r compare.Run) []int {
		var out []int
		for _, d := range c.Dimensions {
			i := slices.Index(d.Values, c.Places[r.Benchmark][d.Name])
			if i < 0 {
				i = len(d.Values)
			}
			out = append(out, i)
		}
		return out
	}
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b compare.Run) int { return slices.Compare(rank(a), rank(b)) })
	return out
}

// withCampaignPlaces gives each run its cell in the campaign (Place), and
// names its tuning as its campaign does ("none", "tcp"): the TuningProfile
// it ran under has a generated name, the same for every tuning of a shared
// pool (sharePool), so a tuning ladder on one pool would record no change
// of tuning from step to step.
func withCampaignPlaces(runs []compare.Run, c *compare.Campaign) []compare.Run {
	if c == nil {
		return runs
	}
	out := slices.Clone(runs)
	for i, r := range out {
		out[i].Place = c.Places[r.Benchmark]
		tuning := c.Places[r.Benchmark][compare.DimTuning]
		if tuning == "" {
			continue
		}
		out[i].Labels = maps.Clone(r.Labels)
		if out[i].Labels == nil {
			out[i].Labels = map[string]string{}
		}
		out[i].Labels[results.LabelTuning] = tuning
	}
	return out
}

// dimValues lists each dimension with its value: "pool c2, tuning none".
func dimValues(dims []compare.Dimension) string {
	if len(dims) == 0 {
		return "none"
	}
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = d.Name + " " + strings.Join(d.Values, ", ")
	}
	return strings.Join(parts, "; ")
}

// summaryLine says what the report covers.
func (r *Report) summaryLine() string {
	samples := 0
	for _, run := range r.Runs {
		samples += run.Samples
	}
	return fmt.Sprintf("%d run(s), %s counted sample(s). Statistics are over the counted repetitions; warm-up repetitions are left out.",
		len(r.Runs), formatCount(samples))
}

// leadRank is a comparison's place among the leading dimensions; after
// them when it is none.
func leadRank(lead []string, a compare.Along) int {
	if i := slices.Index(lead, a.Dimension.Name); i >= 0 {
		return i
	}
	return len(lead)
}
