package figure

import (
	"fmt"
	"html/template"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// PlotHeatmap is seed 002's chiplet matrix: peak bandwidth from a server
// chiplet (rows) to a client chiplet (columns).
const PlotHeatmap PlotKind = "heatmap"

// Heatmap draws, for a bandwidth figure of NetworkBenchmark runs (one
// per pair), a cell per server chiplet and client chiplet: the peak over
// message sizes of the median bandwidth, averaged over the nodes that
// measured the same chiplets. Pairs to the next node get rows of their own.
func Heatmap(f *compare.Figure, runs []compare.Run) (Plot, bool) {
	if f.Metric != "bandwidth" {
		return Plot{}, false
	}
	type cell struct {
		sum float64
		n   int
	}
	cells := map[[2]string]*cell{}
	rowSet, colSet := map[string]bool{}, map[string]bool{}
	for _, ri := range f.Runs {
		r := runs[ri]
		server, client := r.Labels[netbench.LabelServerChiplet], r.Labels[netbench.LabelClientChiplet]
		if r.Pair == "" || server == "" || client == "" {
			continue
		}
		p, _, ok := f.HeadlinePoint(ri)
		if !ok {
			continue
		}
		row := "chiplet " + server
		if r.Labels[netbench.LabelScope] == "interNode" {
			row += ", to the next node"
		}
		col := "chiplet " + client
		c := cells[[2]string{row, col}]
		if c == nil {
			c = &cell{}
			cells[[2]string{row, col}] = c
		}
		c.sum += p.Stats.Median
		c.n++
		rowSet[row], colSet[col] = true, true
	}
	if len(cells) < 2 {
		return Plot{}, false
	}
	rows, cols := sortedChiplets(rowSet), sortedChiplets(colSet)
	values := make([][]float64, len(rows))
	hi := 0.0
	for i, row := range rows {
		values[i] = make([]float64, len(cols))
		for j, col := range cols {
			values[i][j] = -1
			if c := cells[[2]string{row, col}]; c != nil {
				values[i][j] = c.sum / float64(c.n)
				hi = max(hi, values[i][j])
			}
		}
	}
	p := Plot{Kind: PlotHeatmap, Title: f.Test + ": peak bandwidth between chiplets (" + results.DisplayUnit(f.Unit) + ")", XLabel: "client chiplet", YLabel: "server chiplet",
		Series: rows,
		Caption: fmt.Sprintf("Each cell: the highest median %s over message sizes (%s), averaged over the nodes that measured that chiplet pair; darker is faster, blank was not measured.",
			f.Metric, results.DisplayUnit(f.Unit))}
	p.Draw = func() (template.HTML, error) {
		ch := newChart(p.Title, p.XLabel, p.YLabel)
		ch.P.Add(&heatCells{values: values, hi: hi})
		ch.P.NominalX(cols...)
		ch.P.NominalY(rows...)
		// Below about 1.5 in gonum drops the Y tick labels.
		ch.height = vg.Length(max(3, len(rows))) * 0.6 * vg.Inch
		return ch.svg()
	}
	return p, true
}

// sortedChiplets orders "chiplet N..." labels by N, then by text.
func sortedChiplets(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	num := func(s string) int {
		var n int
		_, _ = fmt.Sscanf(s, "chiplet %d", &n)
		return n
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := num(out[i]), num(out[j]); a != b {
			return a < b
		}
		return out[i] < out[j]
	})
	return out
}

// heatCells draws the cells of a heatmap with their values.
type heatCells struct {
	values [][]float64 // by row, column; negative: not measured
	hi     float64
}

// Plot implements plot.Plotter.
func (h *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	text := p.Y.Tick.Label // a style with its text handler
	text.XAlign, text.YAlign, text.Rotation = draw.XCenter, draw.YCenter, 0
	for i, row := range h.values {
		for j, v := range row {
			if v < 0 {
				continue
			}
			r := vg.Rectangle{
				Min: vg.Point{X: trX(float64(j) - 0.48), Y: trY(float64(i) - 0.45)},
				Max: vg.Point{X: trX(float64(j) + 0.48), Y: trY(float64(i) + 0.45)},
			}
			shade := HeatColor(v / h.hi)
			fillRect(&c, r, shade, shade)
			text.Color = color.Black
			if v/h.hi > 0.6 {
				text.Color = color.White
			}
			c.FillText(text, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}, results.FormatValue(v))
		}
	}
}

// DataRange implements plot.DataRanger.
func (h *heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	cols := 0
	for _, r := range h.values {
		cols = max(cols, len(r))
	}
	return -0.5, float64(cols) - 0.5, -0.5, float64(len(h.values)) - 0.5
}

// HeatColor goes from a pale to a deep blue as f goes from 0 to 1.
func HeatColor(f float64) color.RGBA {
	f = min(max(f, 0), 1)
	lo, hi := color.RGBA{0xe8, 0xf0, 0xfa, 0xff}, color.RGBA{0x08, 0x30, 0x6b, 0xff}
	mix := func(a, b uint8) uint8 { return uint8(float64(a) + f*(float64(b)-float64(a))) }
	return color.RGBA{mix(lo.R, hi.R), mix(lo.G, hi.G), mix(lo.B, hi.B), 0xff}
}
