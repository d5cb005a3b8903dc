package figure

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// Sizes of a chart's plot area (the legend goes to its right).
const (
	chartWidth  = 7.5 * vg.Inch
	chartHeight = 4 * vg.Inch
	legendGap   = 10
)

// palette is Tableau 10, distinguishable on white and in print; series past
// ten repeat colors with other markers and dashes.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// SeriesColor is the color of series i.
func SeriesColor(i int) color.RGBA { return palette[i%len(palette)] }

// lighter mixes c with white, for box fills.
func lighter(c color.RGBA) color.RGBA {
	mix := func(v uint8) uint8 { return uint8((int(v) + 2*255) / 3) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// darker is c at two thirds, for outlines.
func darker(c color.RGBA) color.RGBA {
	return color.RGBA{uint8(int(c.R) * 2 / 3), uint8(int(c.G) * 2 / 3), uint8(int(c.B) * 2 / 3), 0xff}
}

func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// chart is a gonum plot, or a grid of small ones (panels) under one title
// and axis labels, with a legend beside it, not over the data.
type chart struct {
	P      *plot.Plot
	panels [][]*plot.Plot // rows of panels, instead of p
	// panelNames are the panels' names, row by row.
	panelNames []string
	// title and the axis labels of the panels as a whole.
	title, xLabel, yLabel string
	legend                plot.Legend
	entries               []string
	width                 vg.Length // of the plot area
	height                vg.Length // of the plot area
}

// newPlot is a plot with a title, labelled axes, a light grid and
// sans-serif text.
func newPlot(title, xLabel, yLabel string, size vg.Length) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(size + 3)
	p.Title.Padding = size
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(size + 1)
		a.Tick.Label.Font = sans(size - 1)
		a.Label.Padding = 4
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Y.Tick.Marker = linearTicks{}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{0xe4}
	g.Horizontal.Color = color.Gray{0xe4}
	p.Add(g)
	return p
}

// newChart is a chart of one plot.
func newChart(title, xLabel, yLabel string) *chart {
	c := newLegendChart()
	c.P = newPlot(title, xLabel, yLabel, 10)
	return c
}

func newLegendChart() *chart {
	l := plot.NewLegend()
	l.TextStyle.Font = sans(10)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = 22
	l.Padding = 2
	return &chart{legend: l, width: chartWidth, height: chartHeight}
}

// addLegend adds an entry for a series.
func (c *chart) addLegend(name string, thumbs ...plot.Thumbnailer) {
	c.legend.Add(name, thumbs...)
	c.entries = append(c.entries, name)
}

// nominalX names the categories 0..n-1 of the X axis: on up to three lines
// when there is room for them side by side, else turned a quarter.
func (c *chart) nominalX(names []string) {
	room := c.width * 0.9 / vg.Length(len(names))
	perLine := int(room / (c.P.X.Tick.Label.Width("x") * 1.1))
	labels := make([]string, len(names))
	wrap := perLine >= 8
	for i, n := range names {
		if wrap {
			labels[i] = wrapLabel(n, perLine, 3)
		} else {
			labels[i] = compare.Ellipsis(n, 40)
		}
	}
	c.P.NominalX(labels...)
	c.P.Y.Padding = 5
	if !wrap {
		c.P.X.Tick.Label.Rotation = math.Pi / 2
		c.P.X.Tick.Label.XAlign = draw.XRight
		c.P.X.Tick.Label.YAlign = draw.YCenter
	}
}

// wrapLabel breaks s into at most lines lines of about n runes, after a
// '-', '_', '/', ' ' or before a '(' where it can.
func wrapLabel(s string, n, lines int) string {
	var out []string
	rest := []rune(s)
	for len(rest) > n && len(out) < lines-1 {
		cut := -1
		for i := min(n, len(rest)-1); i > n/3; i-- {
			switch rest[i-1] {
			case '-', '_', '/', ' ':
				cut = i
			}
			if rest[i] == '(' {
				cut = i
			}
			if cut > 0 {
				break
			}
		}
		if cut < 0 {
			cut = n
		}
		out = append(out, strings.TrimSpace(string(rest[:cut])))
		rest = rest[cut:]
	}
	return strings.Join(append(out, compare.Ellipsis(strings.TrimSpace(string(rest)), n)), "\n")
}

// svg draws the chart and returns its <svg> element.
func (c *chart) svg() (svg template.HTML, err error) {
	defer func() {
		if r := recover(); r != nil { // gonum panics on what it cannot draw
			err = fmt.Errorf("drawing a chart: %v", r)
		}
	}()
	var legendW vg.Length
	for _, e := range c.entries {
		legendW = max(legendW, c.legend.ThumbnailWidth+c.legend.TextStyle.Width(" "+e))
	}
	if legendW > 0 {
		legendW += 2 * legendGap
	}
	entryH := c.legend.TextStyle.Height("Xg") + c.legend.Padding
	height := max(c.height, entryH*vg.Length(len(c.entries))+2*legendGap+30)
	canvas := vgsvg.New(c.width+legendW, height)
	dc := draw.New(canvas)
	area := draw.Crop(dc, 0, -legendW, 0, 0)
	var top vg.Length
	if c.P != nil {
		c.P.Draw(area)
		top = c.P.Title.TextStyle.Height(c.P.Title.Text) + c.P.Title.Padding
	} else {
		top = c.drawPanels(area)
	}
	if legendW > 0 {
		c.legend.Draw(draw.Crop(dc, c.width+legendGap, 0, 0, -top))
	}
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return "", err
	}
	return template.HTML(inlineSVG(b.String())), nil //nolint:gosec // vgsvg escapes its text
}

// inlineSVG drops the XML prologue and comment of a standalone SVG file, to
// put the element into a page.
func inlineSVG(s string) string {
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return strings.Replace(s, "<svg ", `<svg class="chart" role="img" `, 1)
}

// swatch is a legend thumbnail: a filled square with an outline.
type swatch struct{ c color.RGBA }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	side := min(c.Max.Y-c.Min.Y, c.Max.X-c.Min.X) * 0.8
	x0 := c.Min.X + (c.Max.X-c.Min.X-side)/2
	y0 := c.Min.Y + (c.Max.Y-c.Min.Y-side)/2
	r := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + side, Y: y0 + side}}
	fillRect(c, r, s.c, darker(s.c))
}

// fillRect fills r with fill and outlines it with line.
func fillRect(c *draw.Canvas, r vg.Rectangle, fill, line color.Color) {
	c.SetColor(fill)
	c.Fill(r.Path())
	c.SetLineStyle(draw.LineStyle{Color: line, Width: 0.75})
	c.Stroke(r.Path())
}
