package figure

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Layout of small multiples.
const (
	panelColumns = 5
	panelHeight  = 1.9 * vg.Inch
	panelTitle   = 16 // room above each panel for its name
)

// newPanels is a chart of small multiples: rows x cols panels of the
// categories names, each from newPanel.
func newPanels(title, xLabel, yLabel string, names []string) *chart {
	return newPanelsOf(panelColumns, title, xLabel, yLabel, names)
}

// newPanelsOf is newPanels with at most columns panels a row.
func newPanelsOf(columns int, title, xLabel, yLabel string, names []string) *chart {
	c := newLegendChart()
	c.title, c.xLabel, c.yLabel = title, xLabel, yLabel
	cols := min(columns, len(names))
	rows := (len(names) + cols - 1) / cols
	c.panels = make([][]*plot.Plot, rows)
	for r := range c.panels {
		c.panels[r] = make([]*plot.Plot, cols)
	}
	c.panelNames = names
	for i := range names {
		p := newPlot("", "", "", 8)
		p.HideX()
		p.X.Min, p.X.Max = -0.5, 0.5
		c.panels[i/cols][i%cols] = p
	}
	c.width = vg.Length(cols) * chartWidth / vg.Length(max(cols, 3)) // panels no narrower than a fifth, no wider than a third
	c.height = vg.Length(rows)*(panelHeight+panelTitle) + 50
	return c
}

// panel is the panel of category i.
func (c *chart) panel(i int) *plot.Plot {
	cols := len(c.panels[0])
	return c.panels[i/cols][i%cols]
}

// fitY sets a panel's value axis to [lo, hi] with some room.
func fitY(p *plot.Plot, lo, hi float64) {
	pad := (hi - lo) * 0.08
	if pad == 0 {
		pad = math.Max(math.Abs(hi)*0.05, 1e-9)
	}
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.Y.Tick.Marker = linearTicks{}
}

// drawPanels draws the title, the axis labels and the aligned panels into
// area; it returns the height the title takes.
func (c *chart) drawPanels(area draw.Canvas) vg.Length {
	titleSty := text.Style{Color: color.Black, Font: sans(13), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	labelSty := text.Style{Color: color.Black, Font: sans(11), XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}
	area.FillText(titleSty, vg.Point{X: area.Center().X, Y: area.Max.Y}, c.title)
	top := titleSty.Height(c.title) + 10
	area.FillText(labelSty, vg.Point{X: area.Center().X, Y: area.Min.Y + 2}, c.xLabel)
	ySty := labelSty
	ySty.Rotation = math.Pi / 2
	ySty.YAlign = draw.YTop
	area.FillText(ySty, vg.Point{X: area.Min.X + 2, Y: area.Center().Y}, c.yLabel)
	labelH := labelSty.Height("Xg") + 8
	inner := draw.Crop(area, labelH, 0, labelH, -top)
	tiles := draw.Tiles{Rows: len(c.panels), Cols: len(c.panels[0]), PadX: 14, PadY: 6 + panelTitle, PadTop: panelTitle}
	canvases := plot.Align(c.panels, tiles, inner)
	nameSty := titleSty
	nameSty.Font = sans(10)
	nameSty.YAlign = draw.YBottom
	cols := len(c.panels[0])
	for i, name := range c.panelNames {
		p, pc := c.panels[i/cols][i%cols], canvases[i/cols][i%cols]
		p.Draw(pc)
		dc := p.DataCanvas(pc)
		pc.FillText(nameSty, vg.Point{X: dc.Center().X, Y: dc.Max.Y + 4}, name)
	}
	return top
}
