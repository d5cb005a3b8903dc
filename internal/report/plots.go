package report

import (
	"html/template"
	"slices"
	"strconv"
)

// Plots chooses the plots the headline figures of runs call for and draws
// them: per test with message sizes, its metrics against size (and their
// spread when there are repetitions: per scope, pooled over nodes, for
// chiplet pairs), then bars of each such test's headline
// number per run (latency at 8 B, peak bandwidth: the tuning ladder), then
// the metrics of tests without sizes (fio, dd, IOR) as one figure of small
// multiples, a panel per metric with bars per test and run, and each
// one's spread past minUnsizedBoxRepetitions; then each such figure against the number of processes
// that ran it, where tests or runs differ only in that; last, each figure against a numeric label the runs
// differ in (CPU frequency), with a least-squares line per machine type.
func Plots(runs []Run) ([]Plot, error) {
	plots := plan(runs)
	for i := range plots {
		svg, err := plots[i].draw()
		if err != nil {
			return nil, err
		}
		plots[i].SVG = string(svg)
	}
	return plots, nil
}

// plan chooses the plots of runs, to be drawn one at a time. A plot's
// caption adds the limits its runs' nodes reached during its tests.
func plan(runs []Run) []Plot {
	var out []Plot
	limits := make([]map[string]string, len(runs))
	for i, r := range runs {
		limits[i] = testLimits(limitsOf(r))
	}
	add := func(p Plot, ok bool, ris []int, tests ...string) {
		if ok {
			p.ID = "plot-" + strconv.Itoa(len(out)+1)
			p.Caption += limitsCaption(runs, limits, ris, tests)
			out = append(out, p)
		}
	}
	var headline, unsized []*categories
	for _, f := range figures(runs) {
		if !f.sized {
			unsized = addTo(unsized, f)
			continue
		}
		p, ok := linePlot(f, runs)
		add(p, ok, f.runs, f.test)
		if pooled := pooledBoxPlots(f, runs); len(pooled) > 0 {
			for _, p := range pooled {
				add(p, true, f.runs, f.test)
			}
		} else if f.maxN >= minBoxRepetitions {
			p, ok := boxPlot(sizeCategories(f), runs, f.test+": "+f.metric+" over repetitions", "message size (bytes)")
			add(p, ok, f.runs, f.test)
		}
		p, ok = heatmapPlot(f, runs)
		add(p, ok, f.runs, f.test)
		if len(f.runs) > 1 {
			headline = addHeadline(headline, f)
		}
	}
	for _, c := range headline {
		p, ok := barPlot(c, runs, c.title+" per run")
		add(p, ok, c.runs, c.names...)
	}
	if len(unsized) == 1 {
		p, ok := barPlot(unsized[0], runs, unsized[0].metric+" per test and run")
		add(p, ok, unsized[0].runs, unsized[0].names...)
	} else if len(unsized) > 1 {
		var ris []int
		var tests []string
		for _, c := range unsized {
			for _, ri := range c.runs {
				if !slices.Contains(ris, ri) {
					ris = append(ris, ri)
				}
			}
			for _, n := range c.names {
				if !slices.Contains(tests, n) {
					tests = append(tests, n)
				}
			}
		}
		p, ok := barPanels(unsized, runs, "every figure per test and run")
		add(p, ok, ris, tests...)
	}
	for _, c := range unsized {
		if c.maxN >= minUnsizedBoxRepetitions {
			p, ok := boxPlot(c, runs, c.metric+" over repetitions", "test")
			add(p, ok, c.runs, c.names...)
		}
	}
	for _, f := range scalingFigures(runs) {
		add(scalingPlot(f), true, nil)
	}
	for _, p := range scatterPlots(Fits(runs)) {
		add(p, true, nil)
	}
	return out
}

// minUnsizedBoxRepetitions is how many repetitions a box plot of a test
// without sizes needs: below it, the bars' whiskers (min, median, max) say
// all a box would.
const minUnsizedBoxRepetitions = 5

// drawSVG draws a planned plot's SVG into the page (WriteHTML passes plan's
// plots, drawn one at a time).
func drawSVG(p Plot) (template.HTML, error) { return p.draw() }
