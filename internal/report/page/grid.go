package page

import (
	"io"
	"strings"
	"unicode/utf8"
)

// grid is a table of text cells that renders as aligned plain text or as a
// Markdown pipe table.
type grid struct {
	header []string
	right  []bool // per column: right-aligned (figures)
	rows   [][]string
}

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

// widths are the widths of the columns, in runes.
func (g *grid) widths(cell func(string) string) []int {
	w := make([]int, len(g.header))
	for _, r := range append([][]string{g.header}, g.rows...) {
		for i, c := range r {
			w[i] = max(w[i], utf8.RuneCountInString(cell(c)))
		}
	}
	return w
}

func pad(s string, width int, right bool) string {
	fill := strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
	if right {
		return fill + s
	}
	return s + fill
}

// writeText writes the columns two spaces apart, as `benchwright run` does.
func (g *grid) writeText(w io.Writer) error {
	widths := g.widths(func(s string) string { return s })
	var b strings.Builder
	for _, r := range append([][]string{g.header}, g.rows...) {
		line := make([]string, len(r))
		for i, c := range r {
			line[i] = pad(c, widths[i], g.right[i])
		}
		b.WriteString(strings.TrimRight(strings.Join(line, "  "), " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdown writes a pipe table with aligned columns; figures are
// right-aligned.
func (g *grid) writeMarkdown(w io.Writer) error {
	widths := g.widths(escapeMD)
	for i := range widths {
		widths[i] = max(widths[i], 3)
	}
	var b strings.Builder
	row := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			b.WriteString(" " + pad(escapeMD(c), widths[i], g.right[i]) + " |")
		}
		b.WriteString("\n")
	}
	row(g.header)
	b.WriteString("|")
	for i, wd := range widths {
		dashes := strings.Repeat("-", wd)
		if g.right[i] {
			dashes = dashes[1:] + ":"
		}
		b.WriteString(" " + dashes + " |")
	}
	b.WriteString("\n")
	for _, r := range g.rows {
		row(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeMD keeps a cell inside its column, and a name from becoming HTML.
func escapeMD(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;").Replace(s)
}
