package compare

import (
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/benchwright/benchwright/internal/results"
)

// MaxCurves bounds the curves of one plot (ratios along a dimension,
// scaling): past it, a legend cannot be read (the tables have every
// figure).
const MaxCurves = 12

// minScalingCounts is how many process counts a curve needs: a lone
// point is no line.
const minScalingCounts = 2

// ScalingCurve is one run's (or one set of runs') test at several process
// counts.
type ScalingCurve struct {
	Name string
	Xys  plotter.XYs // processes, median; sorted by processes
}

// ScalingFigure is a metric's curves against the process count.
type ScalingFigure struct {
	Metric, Unit string
	Curves       []*ScalingCurve
	// Left counts the curves past MaxCurves, not drawn.
	Left int
}

// ScalingFigures gather, per headline metric of tests without message
// sizes, the medians of each test at the number of processes that ran it
// (Run.Processes: dd's processes, IOR's tasks). A curve joins the tests,
// and the runs, whose names differ only in that number (seed 004's
// write-buffered-1, -2, -4 and -8; a campaign's ior-fpp-1, ior-fpp-2...).
// Curves of fewer than minScalingCounts counts are left out.
func ScalingFigures(runs []Run) []*ScalingFigure {
	var out []*ScalingFigure
	figs := map[string]*ScalingFigure{}
	curves := map[string]*ScalingCurve{}
	for _, r := range runs {
		for _, s := range r.Summaries {
			n := r.Processes[s.Test]
			if n <= 0 || !results.Headline(s.Metric) || s.Labels[results.LabelMsgSize] != "" || !(s.Stats.Median >= 0) {
				continue
			}
			fk := s.Metric + "\x00" + Quantity(s.Unit)
			f := figs[fk]
			if f == nil {
				f = &ScalingFigure{Metric: s.Metric, Unit: s.Unit}
				figs[fk] = f
				out = append(out, f)
			}
			// A campaign's run is named <workflow>-<pool>-<tuning>-<benchmark>:
			// the workflow is the same in every curve.
			run := strings.TrimPrefix(r.Name, r.Labels[results.LabelCampaign]+"-")
			name := withoutCount(run, n) + ": " + withoutCount(s.Test, n)
			if r.MachineType != "" && !strings.Contains(r.Name, r.MachineType) {
				name += " (" + r.MachineType + ")"
			}
			ck := fk + "\x00" + name
			c := curves[ck]
			if c == nil {
				c = &ScalingCurve{Name: name}
				curves[ck] = c
				f.Curves = append(f.Curves, c)
			}
			if !slices.ContainsFunc(c.Xys, func(p plotter.XY) bool { return p.X == float64(n) }) {
				c.Xys = append(c.Xys, plotter.XY{X: float64(n), Y: Convert(s.Stats.Median, s.Unit, f.Unit)})
			}
		}
	}
	for _, f := range out {
		f.Curves = slices.DeleteFunc(f.Curves, func(c *ScalingCurve) bool { return len(c.Xys) < minScalingCounts })
		for _, c := range f.Curves {
			slices.SortFunc(c.Xys, func(a, b plotter.XY) int { return int(a.X - b.X) })
		}
		if len(f.Curves) > MaxCurves {
			f.Left = len(f.Curves) - MaxCurves
			f.Curves = f.Curves[:MaxCurves]
		}
	}
	return slices.DeleteFunc(out, func(f *ScalingFigure) bool { return len(f.Curves) == 0 })
}

// withoutCount is a name without its token that is the count n ("-4",
// "np4", "4p"), tokens being split at '-', '_', '.' and spaces.
func withoutCount(name string, n int) string {
	c := strconv.Itoa(n)
	isCount := func(tok string) bool {
		tok = strings.ToLower(tok)
		for _, form := range []string{c, "np" + c, "p" + c, c + "p", "n" + c, c + "procs", c + "ranks"} {
			if tok == form {
				return true
			}
		}
		return false
	}
	var kept []string
	var seps []string
	start := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && !strings.ContainsRune("-_. ", rune(name[i])) {
			continue
		}
		tok := name[start:i]
		sep := ""
		if i < len(name) {
			sep = name[i : i+1]
		}
		if !isCount(tok) {
			kept, seps = append(kept, tok), append(seps, sep)
		}
		start = i + 1
	}
	var b strings.Builder
	for i, tok := range kept {
		b.WriteString(tok)
		if i < len(kept)-1 {
			b.WriteString(seps[i])
		}
	}
	return b.String()
}
