package page

import (
	"bufio"
	_ "embed"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
)

//go:embed report.html.tmpl
var htmlTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{"svg": drawSVG, "series": figure.Monitor,
	"sub": func(a, b int) int { return a - b }}).Parse(htmlTemplate))

// openTableRows is how many rows a run's table may have to be shown open;
// a lone run's is folded below its headline figures.
const openTableRows = 200

// htmlTable is a grid with a CSS class per cell, for the template.
type htmlTable struct {
	Header []htmlCell
	Rows   [][]htmlCell
}

type htmlCell struct{ Text, Class string }

// htmlGrid turns a grid into cells; class, when set, adds a cell's class.
func htmlGrid(g *grid, class func(row, col int) string) htmlTable {
	cls := func(col int) string {
		if g.right[col] {
			return "num"
		}
		return ""
	}
	t := htmlTable{Header: make([]htmlCell, len(g.header)), Rows: make([][]htmlCell, len(g.rows))}
	for i, h := range g.header {
		t.Header[i] = htmlCell{h, cls(i)}
	}
	for r, row := range g.rows {
		t.Rows[r] = make([]htmlCell, len(row))
		for i, c := range row {
			t.Rows[r][i] = htmlCell{c, cls(i)}
			if class != nil {
				t.Rows[r][i].Class = strings.TrimSpace(t.Rows[r][i].Class + " " + class(r, i))
			}
		}
	}
	return t
}

// htmlRun is a run with its table, for the template.
type htmlRun struct {
	compare.Run
	Anchor string
	Rows   int
	Table  htmlTable
	Open   bool
	// Footnotes say at which limit a node was during the marked tests.
	Footnotes []string
}

// fitsTable is the fits' table, nil without fits.
func fitsTable(r *Report) *htmlTable {
	if len(r.Fits) == 0 {
		return nil
	}
	t := htmlGrid(fitsGrid(r.Fits), nil)
	return &t
}

// cellsTable is the table of a campaign's cells, nil without any; the
// failed ones marked, the expectations that do not hold and the runs that
// regressed.
func cellsTable(cells []compare.Cell) *htmlTable {
	g := cellsGrid(cells)
	if g == nil {
		return nil
	}
	t := htmlGrid(g, func(row, col int) string {
		if cellFailsAt(cells[row], g.header[col]) {
			return "worse"
		}
		if g.header[col] == colBeside && cells[row].Beside.Marked() {
			return "unclear"
		}
		return ""
	})
	return &t
}

// htmlAlong is a comparison along a dimension, for the template.
type htmlAlong struct {
	ID, Title, Note string
	Table           htmlTable
	Plots           []figure.Plot // its ratios against message size
	// Rows counts the table's rows; Open shows it unfolded: short, or
	// without plots that draw it nor a summary.
	Rows int
	Open bool
	// Summary is, for a long comparison without message sizes, each
	// test's first headline figure (see alongSummary), shown before the
	// folded table.
	Summary *htmlTable
}

// openAlongRows is how many rows a comparison's table may have to be shown
// unfolded below its plots.
const openAlongRows = 24

// alongTables are the comparisons along the dimensions as tables, ratios
// colored as the comparison's.
func alongTables(r *Report) []htmlAlong {
	var out []htmlAlong
	// A campaign's report plots the ratios along its own dimensions; along
	// a label that also varies (S2's scope, a pair's node) it keeps the table.
	campaign := slices.ContainsFunc(r.Dimensions, func(d compare.Dimension) bool { return d.Declared })
	for i, a := range r.Along {
		g, classes, _ := alongGrid(a)
		id := "dimension-" + strconv.Itoa(i+1)
		var plots []figure.Plot
		if !campaign || a.Dimension.Declared {
			plots = figure.Along(a)
		}
		for j := range plots {
			plots[j].ID = id + "-plot-" + strconv.Itoa(j+1)
		}
		rows := len(classes)
		h := htmlAlong{ID: id, Title: alongTitle(a), Note: alongNote(a),
			Table: htmlGrid(g, func(row, col int) string { return classes[row][col] }), Plots: plots,
			Rows: rows, Open: rows <= openAlongRows || len(plots) == 0}
		if s, ok := alongSummary(a); ok && len(plots) == 0 {
			sg, scls, _ := alongGrid(s)
			t := htmlGrid(sg, func(row, col int) string { return scls[row][col] })
			h.Summary, h.Open = &t, false
		}
		out = append(out, h)
	}
	return out
}

// HTML writes the report as one self-contained page: inline CSS and
// SVG, no script, no link, nothing fetched. Plots are drawn one at a time
// as the page is written.
func (r *Report) HTML(w io.Writer) error {
	runs := make([]htmlRun, len(r.Runs))
	for i, run := range r.Runs {
		rows := rowsOf(r.Rows, i)
		g, notes := limitedFigures(run, rows, false)
		runs[i] = htmlRun{Run: run, Anchor: "run-" + strconv.Itoa(i+1), Rows: len(rows),
			Table: htmlGrid(g, nil), Open: len(rows) <= openTableRows && len(r.Runs) > 1, Footnotes: notes}
	}
	var compared *htmlTable
	if r.Comparison != nil {
		g := compareGrid(r.Runs, r.Baseline, r.Comparison, false)
		first := len(g.header) - (len(r.Runs) - 1) // the speedup columns
		others := compare.Others(len(r.Runs), r.Baseline)
		t := htmlGrid(g, func(row, col int) string {
			if col < first {
				return ""
			}
			return ratioClass(r.Comparison[row], others[col-first])
		})
		compared = &t
	}
	var steps *htmlTable
	if facts, ladder := compare.LadderOf(r.Runs); ladder != nil {
		t := htmlGrid(ladderGrid(facts, ladder), func(row, col int) string {
			if j := col - 2; j >= 0 && j < len(facts) && ladder[row].Changed[j] {
				return "changed"
			}
			return ""
		})
		steps = &t
	}
	var headline *htmlTable
	g, headlineNotes := r.headlineGrid()
	if g != nil {
		t := htmlGrid(g, nil)
		headline = &t
	}
	plots := plan(r.Runs)
	bw := bufio.NewWriterSize(w, 64<<10)
	err := page.Execute(bw, map[string]any{
		"Title":        r.Title,
		"Headline":     headline,
		"HeadlineHead": headlineHeading,
		"HeadlineNote": headlineNote,
		"HeadlineFoot": headlineNotes,
		"Summary":      r.summaryLine(),
		"Machines":     sharedMachinesNote(r.SharedMachines),
		"Runs":         runs,
		"RunsList":     htmlGrid(runsGrid(r.Runs), nil),
		"Ladder":       steps,
		"Plots":        plots,
		"PlotGroups":   plotGroups(plots),
		"PlotsFirst":   r.plotsLead(),
		"Compare":      compared,
		"Baseline":     r.Runs[r.Baseline].Label(),
		"Note":         withLegend(compareNote(r.Comparison), runMarks(r.Runs)...),
		"Fits":         fitsTable(r),
		"FitsNote":     compare.FitsNote,
		"Cells":        cellsTable(r.Cells),
		"Along":        alongTables(r),
		"AlongNote":    r.AlongNote,
		"AlongHead":    alongHeading,
		"CellsNote":    cellsNote(r.Cells),
		"Nodes":        nodeSections(r.Runs),
		"NodesHead":    nodesHeading,
		"NodesNote":    nodesNote,
		"LimitNote":    compare.LimitsNote,
		"Trends":       trendSections(r.Trends),
		"TrendsHead":   trendsHeading,
		"TrendsNote":   trendsNote,
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}
