package page

import (
	"fmt"
	"io"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// writeNodesMarkdown writes the section of what the nodes did: per run its
// limits, its node tables, and a line per series (drawn in the HTML
// report only); nothing when no run has any.
func (r *Report) writeNodesMarkdown(w io.Writer) error {
	sections := nodeSections(r.Runs)
	if len(sections) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\n## %s\n\n%s %s\n", nodesHeading, nodesNote, compare.LimitsNote); err != nil {
		return err
	}
	for _, s := range sections {
		if _, err := fmt.Fprintf(w, "\n### %s\n", escapeMD(s.Label)); err != nil {
			return err
		}
		if err := writeNotesMarkdown(w, s.Limits); err != nil {
			return err
		}
		for _, t := range s.Tables {
			if _, err := fmt.Fprintf(w, "\n%s:\n\n", t.Title); err != nil {
				return err
			}
			if err := t.grid.writeMarkdown(w); err != nil {
				return err
			}
		}
		var series []string
		for _, m := range s.Records {
			line := m.Title() + ": " + m.Summary()
			if m.Incomplete != "" {
				line += " **incomplete:** " + m.Incomplete
			}
			series = append(series, line)
		}
		if s.Left != "" {
			series = append(series, s.Left)
		}
		series = append(series, s.Notes...)
		if len(series) > 0 {
			if _, err := io.WriteString(w, "\nSeries (drawn over time in the HTML report):\n"); err != nil {
				return err
			}
			if err := writeNotesMarkdown(w, series); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeNotesMarkdown writes notes as a list, after a blank line.
func writeNotesMarkdown(w io.Writer, notes []string) error {
	if len(notes) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, n := range notes {
		b.WriteString("- " + escapeMD(n) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
