package report

import "sort"

// categories are figures side by side: per category (a test, a size) each
// run's point.
type categories struct {
	metric, unit, title string
	names               []string
	index               map[string]int
	runs                []int           // in run order
	points              map[int][]point // by run, per category (stats.N == 0: none)
	maxN                int
	missing             []int // runs left out of a headline chart: they lack its size
}

func newCategories(metric, unit, title string) *categories {
	return &categories{metric: metric, unit: unit, title: title, index: map[string]int{}, points: map[int][]point{}}
}

// categoriesOf is the categories of (metric, unit's dimension, title) in list,
// added to it when missing.
func categoriesOf(list []*categories, metric, unit, title string) (*categories, []*categories) {
	for _, c := range list {
		if c.metric == metric && dimension(c.unit) == dimension(unit) && c.title == title {
			return c, list
		}
	}
	c := newCategories(metric, unit, title)
	return c, append(list, c)
}

// addTo puts the points of f, a figure without message sizes, into the
// categories of its metric and unit's dimension in list, created as needed,
// under category f.test.
func addTo(list []*categories, f *figure) []*categories {
	c, list := categoriesOf(list, f.metric, f.unit, "")
	for _, ri := range f.runs {
		for _, p := range f.points[ri] {
			c.set(f.test, ri, p, f.unit)
		}
	}
	return list
}

// set puts run ri's point p (in unit) under category name.
func (c *categories) set(name string, ri int, p point, unit string) {
	ci, ok := c.index[name]
	if !ok {
		ci = len(c.names)
		c.index[name] = ci
		c.names = append(c.names, name)
	}
	if _, ok := c.points[ri]; !ok {
		c.runs = append(c.runs, ri)
		sort.Ints(c.runs)
	}
	for len(c.points[ri]) <= ci {
		c.points[ri] = append(c.points[ri], point{})
	}
	p.stats = convertStats(p.stats, unit, c.unit)
	vals := make([]float64, len(p.vals))
	for i, v := range p.vals {
		vals[i] = convert(v, unit, c.unit)
	}
	p.vals = vals
	c.points[ri][ci] = p
	c.maxN = max(c.maxN, p.stats.N)
}

// at is run ri's point in category ci, if it has one.
func (c *categories) at(ri, ci int) (point, bool) {
	if ci < len(c.points[ri]) && c.points[ri][ci].stats.N > 0 {
		return c.points[ri][ci], true
	}
	return point{}, false
}

// sizeCategories are a sized figure's message sizes as categories.
func sizeCategories(f *figure) *categories {
	c := newCategories(f.metric, f.unit, "")
	var sizes []float64
	seen := map[float64]bool{}
	for _, ri := range f.runs {
		for _, p := range f.points[ri] {
			if !seen[p.size] {
				seen[p.size] = true
				sizes = append(sizes, p.size)
			}
		}
	}
	sort.Float64s(sizes)
	for _, s := range sizes {
		c.index[formatSize(s)] = len(c.names)
		c.names = append(c.names, formatSize(s))
	}
	for _, ri := range f.runs {
		for _, p := range f.points[ri] {
			c.set(formatSize(p.size), ri, p, f.unit)
		}
	}
	return c
}

// addHeadline puts f's headline number per run into the bar chart of its
// metric and kind (latency at a size, peak).
func addHeadline(list []*categories, f *figure) []*categories {
	_, at, _ := f.headlinePoint(f.runs[0])
	title, name := "peak "+f.metric, f.test
	if at >= 0 {
		title = f.metric + " at " + formatSize(at)
	}
	c, list := categoriesOf(list, f.metric, f.unit, title)
	for _, ri := range f.runs {
		p, pAt, ok := f.headlinePoint(ri)
		if ok && pAt == at {
			c.set(name, ri, p, f.unit)
		} else {
			c.missing = append(c.missing, ri)
		}
	}
	return list
}
