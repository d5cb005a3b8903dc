package page

import (
	"fmt"
	"strconv"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/sampler"
)

// nodesHeading heads the section of what the nodes did.
const nodesHeading = "What the nodes did"

// nodeSection is a run's part of the section: its limits, its node
// tables, its series.
type nodeSection struct {
	ID, Label string
	Limits    []string
	Tables    []nodeTableOf
	Records   []compare.MonitorRecord
	// Left and Notes say what of the series is not drawn.
	Left  string
	Notes []string
}

// nodeTableOf is one of a run's node tables, as a grid and its marks.
type nodeTableOf struct {
	Title  string
	grid   *grid
	marked [][]bool
}

// nodeSections are the parts of the runs that have node summaries or
// series, in order.
func nodeSections(runs []compare.Run) []nodeSection {
	var out []nodeSection
	for i, r := range runs {
		if len(r.Nodes) == 0 && len(r.Monitor.Records) == 0 && r.Monitor.Left == 0 && len(r.Monitor.Notes) == 0 {
			continue
		}
		s := nodeSection{ID: "nodes-" + strconv.Itoa(i+1), Label: r.Label(), Records: r.Monitor.Records, Notes: r.Monitor.Notes}
		for _, l := range compare.LimitsOf(r) {
			s.Limits = append(s.Limits, l.String())
		}
		for _, t := range []struct {
			title string
			cols  []nodeColumn
			key   string
		}{{"CPU", cpuColumns, ""}, {"Disks", diskColumns, sampler.LabelDevice}, {"Network", netColumns, sampler.LabelIface}} {
			if g, marked := nodeTable(r, t.cols, t.key); g != nil {
				s.Tables = append(s.Tables, nodeTableOf{Title: t.title, grid: g, marked: marked})
			}
		}
		if n := r.Monitor.Left; n > 0 {
			s.Left = fmt.Sprintf("%d more series not drawn: a report draws at most %d per run, the first by repetition and pod.", n, compare.MaxRecordsPerRun)
		}
		out = append(out, s)
	}
	return out
}

// HTML is the table with its cells at a limit marked.
func (t nodeTableOf) HTML() htmlTable {
	return htmlGrid(t.grid, func(row, col int) string {
		if t.marked[row][col] {
			return "worse"
		}
		return ""
	})
}
