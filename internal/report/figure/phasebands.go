package figure

import (
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// bandColors shade a series' phases, one after the other.
var bandColors = []color.RGBA{{0xe3, 0xec, 0xf6, 0xff}, {0xf3, 0xeb, 0xdc, 0xff}}

// phaseBands draws behind a time panel each test's stretch, shaded, and
// each note of the series as a dashed line; labelled, the test's name at
// the top of its band (shortened to fit it) and the note's number at the
// bottom.
type phaseBands struct {
	phases   []compare.PhaseSpan
	notes    []compare.NoteMark
	labelled bool
}

// Plot implements plot.Plotter.
func (b phaseBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := text.Style{Color: color.Gray{0x40}, Font: sans(8), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	for i, ph := range b.phases {
		x0, x1 := trX(ph.From), trX(ph.To)
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: c.Min.Y}, Max: vg.Point{X: x1, Y: c.Max.Y}}
		c.SetColor(bandColors[i%len(bandColors)])
		c.Fill(r.Path())
		if label := fitText(sty, ph.Test, x1-x0-4); b.labelled && label != "" {
			c.FillText(sty, vg.Point{X: x0 + 2, Y: c.Max.Y - 2}, label)
		}
	}
	dashed := draw.LineStyle{Color: color.Gray{0x70}, Width: 0.75, Dashes: []vg.Length{2, 2}}
	num := sty
	num.YAlign = draw.YBottom
	for i, n := range b.notes {
		x := trX(n.At)
		c.StrokeLine2(dashed, x, c.Min.Y, x, c.Max.Y)
		if !b.labelled {
			continue
		}
		label, at := strconv.Itoa(i+1), x+1.5
		if at+num.Width(label) > c.Max.X { // at the series' end: left of its line
			at = x - 1.5 - num.Width(label)
		}
		c.FillText(num, vg.Point{X: at, Y: c.Min.Y + 2}, label)
	}
}

// fitText is s, shortened with an ellipsis to fit width; empty when not
// even a letter and the ellipsis do.
func fitText(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n >= 1; n-- {
		if short := string(r[:n]) + "…"; sty.Width(short) <= width {
			return short
		}
	}
	return ""
}
