package page

import (
	"fmt"
	"io"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// WriteFiguresMarkdown writes each run's figures as a Markdown section.
func WriteFiguresMarkdown(w io.Writer, runs []compare.Run, rows []compare.RunFigure) error {
	for i, r := range runs {
		if _, err := fmt.Fprintf(w, "### %s\n\n", escapeMD(r.Label())); err != nil {
			return err
		}
		g, notes := limitedFigures(r, rowsOf(rows, i), false)
		if err := g.writeMarkdown(w); err != nil {
			return err
		}
		if err := writeNotesMarkdown(w, notes); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

// WriteCompareMarkdown writes the comparison as a Markdown table, after a
// line that says how to read it.
func WriteCompareMarkdown(w io.Writer, runs []compare.Run, baseline int, rows []compare.Row) error {
	if _, err := fmt.Fprintf(w, "Baseline: **%s**. %s.\n\n", escapeMD(runs[baseline].Label()), withLegend(compareNote(rows), runMarks(runs)...)); err != nil {
		return err
	}
	return compareGrid(runs, baseline, rows, false).writeMarkdown(w)
}

// writeAlongMarkdown writes the comparisons along the dimensions, a table
// each, or says why there are none.
func (r *Report) writeAlongMarkdown(w io.Writer) error {
	if len(r.Along) == 0 && r.AlongNote == "" {
		return nil
	}
	if _, err := io.WriteString(w, "\n## "+alongHeading+"\n"); err != nil {
		return err
	}
	if r.AlongNote != "" {
		if _, err := io.WriteString(w, "\n"+escapeMD(r.AlongNote)+"\n"); err != nil {
			return err
		}
	}
	return WriteAlongMarkdown(w, r.Along)
}

// WriteAlongMarkdown writes comparisons along dimensions: each one's title
// as a heading, how to read it, and its table.
func WriteAlongMarkdown(w io.Writer, along []compare.Along) error {
	for _, a := range along {
		if _, err := fmt.Fprintf(w, "\n### %s\n\n%s.\n\n", escapeMD(alongTitle(a)), escapeMD(alongNote(a))); err != nil {
			return err
		}
		g, _, _ := alongGrid(a)
		if err := g.writeMarkdown(w); err != nil {
			return err
		}
	}
	return nil
}

// alongHeading heads the comparisons along the dimensions.
const alongHeading = "Comparisons by dimension"

// Markdown writes the report: its cells, the comparisons by dimension,
// its runs, the comparison with one baseline run, every run's figures, and
// what the nodes did.
func (r *Report) Markdown(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "# %s\n\n%s\n", escapeMD(r.Title), r.summaryLine()); err != nil {
		return err
	}
	if note := sharedMachinesNote(r.SharedMachines); note != "" {
		if _, err := io.WriteString(w, "\n"+escapeMD(note)+"\n"); err != nil {
			return err
		}
	}
	if g, notes := r.headlineGrid(); g != nil {
		if _, err := io.WriteString(w, "\n## "+headlineHeading+"\n\n"+headlineNote+"\n\n"); err != nil {
			return err
		}
		if err := g.writeMarkdown(w); err != nil {
			return err
		}
		for _, n := range notes {
			if _, err := io.WriteString(w, "\n"+escapeMD(n)+"\n"); err != nil {
				return err
			}
		}
	}
	if g := cellsGrid(r.Cells); g != nil {
		if _, err := io.WriteString(w, "\n## Cells\n\n"+cellsNote(r.Cells)+"\n\n"); err != nil {
			return err
		}
		if err := g.writeMarkdown(w); err != nil {
			return err
		}
	}
	if err := r.writeAlongMarkdown(w); err != nil {
		return err
	}
	if err := r.writeTrendsMarkdown(w); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n## Runs\n\n"); err != nil {
		return err
	}
	if err := runsGrid(r.Runs).writeMarkdown(w); err != nil {
		return err
	}
	if facts, steps := compare.LadderOf(r.Runs); steps != nil {
		if _, err := io.WriteString(w, "\n## Tuning ladder: node settings per step\n\n"); err != nil {
			return err
		}
		if err := ladderGrid(facts, steps).writeMarkdown(w); err != nil {
			return err
		}
	}
	if r.Comparison != nil {
		if _, err := io.WriteString(w, "\n## Comparison\n\n"); err != nil {
			return err
		}
		if err := WriteCompareMarkdown(w, r.Runs, r.Baseline, r.Comparison); err != nil {
			return err
		}
	}
	if len(r.Fits) > 0 {
		if _, err := io.WriteString(w, "\n## Fits\n\n"+compare.FitsNote+"\n\n"); err != nil {
			return err
		}
		if err := fitsGrid(r.Fits).writeMarkdown(w); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "\n## Figures\n\n"); err != nil {
		return err
	}
	if err := WriteFiguresMarkdown(w, r.Runs, r.Rows); err != nil {
		return err
	}
	return r.writeNodesMarkdown(w)
}
