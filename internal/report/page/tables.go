package page

import (
	"fmt"
	"io"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/benchmath"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// runsGrid lists the runs: what ran where, and how many repetitions count.
func runsGrid(runs []compare.Run) *grid {
	g := &grid{header: []string{"run", "kind", "benchmark", "machine type", "repetitions", "warm-up", "samples", "labels", "source"},
		right: []bool{false, false, false, false, true, true, true, false, false}}
	for _, r := range runs {
		g.add(r.Name, orDash(r.Kind), qualified(r), orDash(r.MachineType), strconv.Itoa(r.Repetitions),
			strconv.Itoa(r.Warmups), formatCount(r.Samples), orDash(joinLabels(runLabelsAndAxes(r))), inputsOf(r))
	}
	return g
}

// runLabelsAndAxes are a run's labels and its axes' values.
func runLabelsAndAxes(r compare.Run) map[string]string {
	if len(r.Axes) == 0 {
		return r.Labels
	}
	out := maps.Clone(r.Labels)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range r.Axes {
		out[k] = strconv.FormatFloat(v, 'g', 6, 64)
	}
	return out
}

// joinLabels prints labels as sorted k=v pairs.
func joinLabels(labels map[string]string) string {
	pairs := make([]string, 0, len(labels))
	for k, v := range labels {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return strings.Join(pairs, " ")
}

// qualified is a run's namespace/benchmark and UID.
func qualified(r compare.Run) string {
	s := r.Benchmark
	if r.Namespace != "" {
		s = r.Namespace + "/" + s
	}
	if r.RunUID != "" {
		s += " (" + r.RunUID + ")"
	}
	return s
}

// inputsOf names a run's inputs.
func inputsOf(r compare.Run) string {
	if len(r.Origins) == 1 {
		return r.Origins[0]
	}
	return fmt.Sprintf("%s and %d more", r.Origins[0], len(r.Origins)-1)
}

// figuresGrid is one run's rows; upper makes TEXT-STYLE headers and leaves
// out mean and stddev, as `benchwright run` prints.
func figuresGrid(rows []compare.RunFigure, upper bool) *grid {
	sized := false
	for _, r := range rows {
		sized = sized || r.MsgSize != ""
	}
	header := []string{"test", "metric", "msg size (B)", "median", "min", "max", "mean", "stddev", "CV", "n", "unit"}
	right := []bool{false, false, true, true, true, true, true, true, true, true, false}
	keep := func(col int) bool {
		return (sized || col != 2) && (!upper || (col != 6 && col != 7))
	}
	g := &grid{}
	for i := range header {
		if keep(i) {
			h := header[i]
			if upper {
				h = textHeader(h)
			}
			g.header, g.right = append(g.header, h), append(g.right, right[i])
		}
	}
	for _, r := range rows {
		s := r.Stats
		cells := []string{r.Test, r.Metric, orDash(r.MsgSize), formatValue(s.Median), formatValue(s.Min), formatValue(s.Max),
			formatValue(s.Mean), formatValue(s.Stddev), results.FormatCV(s), strconv.Itoa(s.N), results.DisplayUnit(r.Unit)}
		var kept []string
		for i, c := range cells {
			if keep(i) {
				kept = append(kept, c)
			}
		}
		g.add(kept...)
	}
	return g
}

// compareGrid is the comparison: each run's median, then each other run's
// speedup over the baseline.
func compareGrid(runs []compare.Run, baseline int, rows []compare.Row, upper bool) *grid {
	sized := false
	for _, r := range rows {
		sized = sized || r.MsgSize != ""
	}
	g := &grid{header: []string{"test", "metric"}, right: []bool{false, false}}
	if sized {
		g.header, g.right = append(g.header, "msg size (B)"), append(g.right, true)
	}
	g.header, g.right = append(g.header, "unit", "better"), append(g.right, false, false)
	if upper {
		for i, h := range g.header {
			g.header[i] = textHeader(h)
		}
	}
	for _, r := range runs {
		g.header, g.right = append(g.header, r.Label()), append(g.right, true)
	}
	for i, r := range runs {
		if i != baseline {
			g.header, g.right = append(g.header, ratioColumn(rows, r, runs[baseline])), append(g.right, true)
		}
	}
	for _, r := range rows {
		cells := []string{r.Test, r.Metric}
		if sized {
			cells = append(cells, orDash(r.MsgSize))
		}
		cells = append(cells, results.DisplayUnit(r.Unit), direction(r.LowerIsBetter))
		for _, m := range r.Medians {
			cells = append(cells, formatValue(m))
		}
		for i := range r.Speedups {
			if i != baseline {
				cells = append(cells, ratioCell(r, i)+besideMark(runs[i].Beside, runs[baseline].Beside))
			}
		}
		g.add(cells...)
	}
	return g
}

// textHeader is a Markdown header as the text tables write it: "msg size
// (B)" -> "MSG_SIZE".
func textHeader(h string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSuffix(h, " (B)"), " ", "_"))
}

// speedupColumn names the column of run's speedups over base.
func speedupColumn(run, base compare.Run) string {
	return run.Label() + " speedup vs " + base.Label()
}

// ratioColumn names the column of run's ratios to base, as rows divide.
func ratioColumn(rows []compare.Row, run, base compare.Run) string {
	if len(rows) > 0 && rows[0].Ratio == compare.RatioValue {
		return run.Label() + " / " + base.Label()
	}
	return speedupColumn(run, base)
}

// ratioCell is run i's ratio, its interval where the repetitions allow
// one, its p, and its marks: "2.60x [2.55–2.66] p=0.0022", "1.09x ~
// p=0.10; 6 a side would decide", "6.70x ~ p=0.40 !".
func ratioCell(r compare.Row, i int) string {
	s := r.Speedups[i]
	out := formatSpeedup(s)
	if r.Ratio == compare.RatioValue {
		out = formatRatio(s)
	}
	if r.Compared(i) {
		out += " " + verdictText(r.Verdicts[i])
	}
	if r.Noisy[i] {
		out += " !"
	}
	return out
}

// verdictText is a verdict as a ratio's cell ends: its interval when
// known, ~ when not decided, its p (and the adjusted one where that
// differs), and for an undecided one the repetitions that would decide.
func verdictText(v benchmath.Verdict) string {
	var out []string
	if iv := v.Interval; iv.Known() {
		out = append(out, "["+formatBound(iv.Lo)+"–"+formatBound(iv.Hi)+"]")
	}
	if m := v.Mark(); m != "" {
		out = append(out, m)
	}
	p := "p=" + benchmath.FormatP(v.P)
	if adj := benchmath.FormatP(v.AdjustedP); v.Family > 1 && adj != benchmath.FormatP(v.P) {
		p += " (" + adj + " adj.)"
	}
	out = append(out, p)
	text := strings.Join(out, " ")
	switch {
	case v.Decided || v.Need == 0:
	case v.Need == benchmath.NoChange:
		text += "; no change"
	case v.Need > benchmath.MaxRepetitions:
		text += fmt.Sprintf("; over %d a side would decide", benchmath.MaxRepetitions)
	default:
		text += fmt.Sprintf("; %d a side would decide", v.Need)
	}
	return text
}

// rowsOf splits rows by run.
func rowsOf(rows []compare.RunFigure, run int) []compare.RunFigure {
	var out []compare.RunFigure
	for _, r := range rows {
		if r.Run == run {
			out = append(out, r)
		}
	}
	return out
}

// WriteText writes each run's figures as aligned text, as `benchwright run`
// prints them: a heading line per run, then its table.
func WriteText(w io.Writer, runs []compare.Run, rows []compare.RunFigure) error {
	for i, r := range runs {
		var what []string
		for _, s := range []string{r.Kind, r.MachineType} {
			if s != "" {
				what = append(what, s)
			}
		}
		what = append(what, fmt.Sprintf("medians over %d counted repetition(s)", r.Repetitions))
		if _, err := fmt.Fprintf(w, "\n%s (%s)\n", r.Name, strings.Join(what, ", ")); err != nil {
			return err
		}
		g, notes := limitedFigures(r, rowsOf(rows, i), true)
		if err := g.writeText(w); err != nil {
			return err
		}
		for _, n := range notes {
			if _, err := io.WriteString(w, n+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteCompareText writes the comparison as aligned text.
func WriteCompareText(w io.Writer, runs []compare.Run, baseline int, rows []compare.Row) error {
	note, legend, _ := strings.Cut(withLegend(compareNote(rows), runMarks(runs)...), ". ")
	if _, err := fmt.Fprintf(w, "Baseline: %s. %s.\n%s.\n", runs[baseline].Label(), note, legend); err != nil {
		return err
	}
	return compareGrid(runs, baseline, rows, true).writeText(w)
}

// compareNote says how to read a comparison: its ratio, test, interval
// and marks.
func compareNote(rows []compare.Row) string {
	note, maxCV := speedupNote, compare.DefaultMaxCV
	if len(rows) > 0 {
		if rows[0].Ratio == compare.RatioValue {
			note = valueNote
		}
		maxCV = rows[0].MaxCV
	}
	if family := compare.Family(rows); family > 0 {
		note += ". " + benchmath.DefaultOptions.Note(family) + "; \"n a side would decide\" is how many repetitions a side " +
			"would decide an undecided one at its observed change and spread"
	}
	return note + "; ! marks a CV above " + strconv.FormatFloat(maxCV, 'g', -1, 64) + "% (too noisy to compare)"
}

// speedupNote says how to read a speedup.
const speedupNote = "Speedup = baseline/value for lower-is-better metrics (latency, time), value/baseline otherwise: above 1x is better than the baseline"

// valueNote says how to read a plain ratio.
const valueNote = "Ratio = value/baseline as measured, for every metric: for lower-is-better metrics (latency, time) above 1x is worse than the baseline"
