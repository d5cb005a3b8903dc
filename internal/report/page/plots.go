package page

import (
	"html/template"
	"slices"
	"strconv"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
)

// plotsOf chooses the plots the headline figures of runs call for and draws
// them: per test with message sizes, its metrics against size (and their
// spread when there are repetitions: per scope, pooled over nodes, for
// chiplet pairs), then bars of each such test's headline
// number per run (latency at 8 B, peak bandwidth: the tuning ladder), then
// the metrics of tests without sizes (fio, dd, IOR) as one figure of small
// multiples, a panel per metric with bars per test and run, and each
// one's spread past minUnsizedBoxRepetitions; then each such figure against the number of processes
// that ran it, where tests or runs differ only in that; last, each figure against a numeric label the runs
// differ in (CPU frequency), with a least-squares line per machine type.
func plotsOf(runs []compare.Run) ([]figure.Plot, error) {
	plots := plan(runs)
	for i := range plots {
		svg, err := plots[i].Draw()
		if err != nil {
			return nil, err
		}
		plots[i].SVG = string(svg)
	}
	return plots, nil
}

// plan chooses the plots of runs, to be drawn one at a time. A plot's
// caption adds the limits its runs' nodes reached during its tests.
func plan(runs []compare.Run) []figure.Plot {
	var out []figure.Plot
	limits := make([]map[string]string, len(runs))
	for i, r := range runs {
		limits[i] = compare.TestLimits(compare.LimitsOf(r))
	}
	add := func(p figure.Plot, ok bool, ris []int, tests ...string) {
		if ok {
			p.ID = "plot-" + strconv.Itoa(len(out)+1)
			p.Caption += limitsCaption(runs, limits, ris, tests)
			out = append(out, p)
		}
	}
	var headline, unsized []*figure.Categories
	for _, f := range compare.Figures(runs) {
		if !f.Sized {
			unsized = figure.AddTo(unsized, f)
			continue
		}
		p, ok := figure.Lines(f, runs)
		add(p, ok, f.Runs, f.Test)
		if pooled := figure.PooledBoxes(f, runs); len(pooled) > 0 {
			for _, p := range pooled {
				add(p, true, f.Runs, f.Test)
			}
		} else if f.MaxN >= figure.MinBoxRepetitions {
			p, ok := figure.Boxes(figure.SizeCategories(f), runs, f.Test+": "+f.Metric+" over repetitions", "message size (bytes)")
			add(p, ok, f.Runs, f.Test)
		}
		p, ok = figure.Heatmap(f, runs)
		add(p, ok, f.Runs, f.Test)
		if len(f.Runs) > 1 {
			headline = figure.AddHeadline(headline, f)
		}
	}
	for _, c := range headline {
		p, ok := figure.Bars(c, runs, c.Title+" per run")
		add(p, ok, c.Runs, c.Names...)
	}
	if len(unsized) == 1 {
		p, ok := figure.Bars(unsized[0], runs, unsized[0].Metric+" per test and run")
		add(p, ok, unsized[0].Runs, unsized[0].Names...)
	} else if len(unsized) > 1 {
		var ris []int
		var tests []string
		for _, c := range unsized {
			for _, ri := range c.Runs {
				if !slices.Contains(ris, ri) {
					ris = append(ris, ri)
				}
			}
			for _, n := range c.Names {
				if !slices.Contains(tests, n) {
					tests = append(tests, n)
				}
			}
		}
		p, ok := figure.BarPanels(unsized, runs, "every figure per test and run")
		add(p, ok, ris, tests...)
	}
	for _, c := range unsized {
		if c.MaxN >= minUnsizedBoxRepetitions {
			p, ok := figure.Boxes(c, runs, c.Metric+" over repetitions", "test")
			add(p, ok, c.Runs, c.Names...)
		}
	}
	for _, f := range compare.ScalingFigures(runs) {
		add(figure.Scaling(f), true, nil)
	}
	for _, p := range figure.Fits(compare.Fits(runs)) {
		add(p, true, nil)
	}
	return out
}

// minUnsizedBoxRepetitions is how many repetitions a box plot of a test
// without sizes needs: below it, the bars' whiskers (min, median, max) say
// all a box would.
const minUnsizedBoxRepetitions = 5

// drawSVG draws a planned plot's SVG into the page (HTML passes plan's
// plots, drawn one at a time).
func drawSVG(p figure.Plot) (template.HTML, error) { return p.Draw() }
