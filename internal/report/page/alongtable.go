package page

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// alongTitle says what the comparison divides by what, and within which groups:
// "pool: c2d / c2 and c3 / c2, per benchmark and tuning".
func alongTitle(a compare.Along) string {
	d := a.Dimension
	var ratios []string
	for _, v := range d.Values {
		if v != d.Baseline {
			ratios = append(ratios, v+" / "+d.Baseline)
		}
	}
	t := d.Name + ": " + joinAnd(ratios)
	if len(a.Others) > 0 {
		t += ", per " + joinAnd(a.Others)
	}
	if a.Ladder {
		t += "; each step also against the step before"
	}
	return t
}

// alongNote says how to read one comparison along a dimension.
func alongNote(a compare.Along) string {
	note := "Each run against the run of " + a.Dimension.Name + " " + a.Dimension.Baseline
	if len(a.Others) > 0 {
		note += " with the same " + joinAnd(a.Others)
	}
	return withLegend(note+", per test, metric and message size. "+compareNote(a.Rows()), alongMarks(a)...)
}

// ratioHeader names the column of value v divided by base.
func ratioHeader(ratio compare.Ratio, v, base string) string {
	if ratio == compare.RatioValue {
		return v + " / " + base
	}
	return v + " speedup vs " + base
}

// alongGrid is a comparison along a dimension as a table: a row per group
// and figure with the group's values of the other dimensions, each value's
// median, then each value's ratio to the baseline's (and, for a ladder, to
// the step before's). A group without its baseline says why in its ratios'
// cells. classes are each cell's CSS class (better, worse, unclear); the
// columns before fixed name no value.
func alongGrid(a compare.Along) (g *grid, classes [][]string, fixed int) {
	d := a.Dimension
	rows := a.Rows()
	ratio := compare.RatioSpeedup
	sized := false
	for _, r := range rows {
		sized = sized || r.MsgSize != ""
		ratio = r.Ratio
	}
	g = &grid{}
	col := func(h string, right bool) { g.header, g.right = append(g.header, h), append(g.right, right) }
	for _, o := range a.Others {
		col(o, false)
	}
	col("test", false)
	col("metric", false)
	if sized {
		col("msg size (B)", true)
	}
	col("unit", false)
	col("better", false)
	fixed = len(g.header)
	for _, v := range d.Values {
		col(v, true)
	}
	for _, v := range d.Values {
		if v != d.Baseline {
			col(ratioHeader(ratio, v, d.Baseline), true)
		}
	}
	if a.Ladder {
		for i, v := range d.Values[1:] {
			col(ratioHeader(ratio, v, d.Values[i])+" (step before)", true)
		}
	}
	base := slices.Index(d.Values, d.Baseline)
	for _, grp := range a.Groups {
		for i, r := range grp.Rows {
			cells := append([]string{}, grp.Key...)
			cells = append(cells, r.Test, r.Metric)
			if sized {
				cells = append(cells, orDash(r.MsgSize))
			}
			cells = append(cells, results.DisplayUnit(r.Unit), direction(r.LowerIsBetter))
			cls := make([]string, len(cells))
			for _, m := range r.Medians {
				cells, cls = append(cells, formatValue(m)), append(cls, "")
			}
			add := func(r compare.Row, v int) {
				switch {
				case grp.Missing != "" && grp.Runs[v] >= 0:
					cells, cls = append(cells, grp.Missing), append(cls, "unclear")
				case grp.Runs[v] < 0:
					cells, cls = append(cells, orDash(grp.Absent[v])), append(cls, "")
				default:
					cells, cls = append(cells, ratioCell(r, v)+groupMark(grp, v, base)), append(cls, ratioClass(r, v))
				}
			}
			for v, val := range d.Values {
				if val != d.Baseline {
					add(r, v)
				}
			}
			if a.Ladder {
				for v := 1; v < len(d.Values); v++ {
					switch {
					case grp.Runs[v] < 0:
						cells, cls = append(cells, "-"), append(cls, "")
					case stepBefore(grp, v) < 0:
						cells, cls = append(cells, "(first step)"), append(cls, "")
					default:
						cells, cls = append(cells, ratioCell(grp.Steps[i], v)+groupMark(grp, v, stepBefore(grp, v))), append(cls, ratioClass(grp.Steps[i], v))
					}
				}
			}
			g.add(cells...)
			classes = append(classes, cls)
		}
	}
	return g, classes, fixed
}

// stepBefore is the value before v that the group has a run of, -1 when
// none.
func stepBefore(g compare.AlongGroup, v int) int {
	for u := v - 1; u >= 0; u-- {
		if g.Runs[u] >= 0 {
			return u
		}
	}
	return -1
}

// ratioClass colors a ratio: better, worse, or unclear (no color says
// better or worse where the noise decides).
func ratioClass(r compare.Row, i int) string {
	switch better, known := r.Better(i); {
	case !known:
		return ""
	case r.Undecided(i) || r.Noisy[i]:
		return "unclear"
	case better:
		return "better"
	}
	return "worse"
}

// joinAnd lists words as a sentence does: "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// WriteAlongText writes comparisons along dimensions as aligned text: each
// one's title, how to read it, and its table.
func WriteAlongText(w io.Writer, along []compare.Along) error {
	for i, a := range along {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "%s\n%s.\n", alongTitle(a), alongNote(a)); err != nil {
			return err
		}
		g, _, fixed := alongGrid(a)
		for i, h := range g.header[:fixed] {
			g.header[i] = textHeader(h)
		}
		if err := g.writeText(w); err != nil {
			return err
		}
	}
	return nil
}
