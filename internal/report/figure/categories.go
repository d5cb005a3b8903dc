package figure

import (
	"sort"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// Categories are figures side by side: per category (a test, a size) each
// run's point.
type Categories struct {
	Metric, unit, Title string
	Names               []string
	index               map[string]int
	Runs                []int                   // in run order
	points              map[int][]compare.Point // by run, per category (stats.N == 0: none)
	MaxN                int
	missing             []int // runs left out of a headline chart: they lack its size
}

func newCategories(metric, unit, title string) *Categories {
	return &Categories{Metric: metric, unit: unit, Title: title, index: map[string]int{}, points: map[int][]compare.Point{}}
}

// categoriesOf is the categories of (metric, unit's dimension, title) in list,
// added to it when missing.
func categoriesOf(list []*Categories, metric, unit, title string) (*Categories, []*Categories) {
	for _, c := range list {
		if c.Metric == metric && compare.Quantity(c.unit) == compare.Quantity(unit) && c.Title == title {
			return c, list
		}
	}
	c := newCategories(metric, unit, title)
	return c, append(list, c)
}

// AddTo puts the points of f, a figure without message sizes, into the
// categories of its metric and unit's dimension in list, created as needed,
// under category f.test.
func AddTo(list []*Categories, f *compare.Figure) []*Categories {
	c, list := categoriesOf(list, f.Metric, f.Unit, "")
	for _, ri := range f.Runs {
		for _, p := range f.Points[ri] {
			c.set(f.Test, ri, p, f.Unit)
		}
	}
	return list
}

// set puts run ri's point p (in unit) under category name.
func (c *Categories) set(name string, ri int, p compare.Point, unit string) {
	ci, ok := c.index[name]
	if !ok {
		ci = len(c.Names)
		c.index[name] = ci
		c.Names = append(c.Names, name)
	}
	if _, ok := c.points[ri]; !ok {
		c.Runs = append(c.Runs, ri)
		sort.Ints(c.Runs)
	}
	for len(c.points[ri]) <= ci {
		c.points[ri] = append(c.points[ri], compare.Point{})
	}
	p.Stats = compare.ConvertStats(p.Stats, unit, c.unit)
	vals := make([]float64, len(p.Vals))
	for i, v := range p.Vals {
		vals[i] = compare.Convert(v, unit, c.unit)
	}
	p.Vals = vals
	c.points[ri][ci] = p
	c.MaxN = max(c.MaxN, p.Stats.N)
}

// at is run ri's point in category ci, if it has one.
func (c *Categories) at(ri, ci int) (compare.Point, bool) {
	if ci < len(c.points[ri]) && c.points[ri][ci].Stats.N > 0 {
		return c.points[ri][ci], true
	}
	return compare.Point{}, false
}

// SizeCategories are a sized figure's message sizes as categories.
func SizeCategories(f *compare.Figure) *Categories {
	c := newCategories(f.Metric, f.Unit, "")
	var sizes []float64
	seen := map[float64]bool{}
	for _, ri := range f.Runs {
		for _, p := range f.Points[ri] {
			if !seen[p.Size] {
				seen[p.Size] = true
				sizes = append(sizes, p.Size)
			}
		}
	}
	sort.Float64s(sizes)
	for _, s := range sizes {
		c.index[compare.FormatSize(s)] = len(c.Names)
		c.Names = append(c.Names, compare.FormatSize(s))
	}
	for _, ri := range f.Runs {
		for _, p := range f.Points[ri] {
			c.set(compare.FormatSize(p.Size), ri, p, f.Unit)
		}
	}
	return c
}

// AddHeadline puts f's headline number per run into the bar chart of its
// metric and kind (latency at a size, peak).
func AddHeadline(list []*Categories, f *compare.Figure) []*Categories {
	_, at, _ := f.HeadlinePoint(f.Runs[0])
	title, name := "peak "+f.Metric, f.Test
	if at >= 0 {
		title = f.Metric + " at " + compare.FormatSize(at)
	}
	c, list := categoriesOf(list, f.Metric, f.Unit, title)
	for _, ri := range f.Runs {
		p, pAt, ok := f.HeadlinePoint(ri)
		if ok && pAt == at {
			c.set(name, ri, p, f.Unit)
		} else {
			c.missing = append(c.missing, ri)
		}
	}
	return list
}
