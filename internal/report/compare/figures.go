package compare

import (
	"sort"

	"github.com/benchwright/benchwright/internal/results"
)

// Point is one run's figure at one message size (or of a test without).
type Point struct {
	Size  float64 // bytes; -1 without
	Stats results.Stats
	Vals  []float64
}

// Figure is one test's metric across runs, in the unit of the first run
// that has it.
type Figure struct {
	Test, Metric, Unit string
	Sized              bool
	Runs               []int           // runs that have it, in order
	Points             map[int][]Point // by run
	MaxN               int             // most counted repetitions of a point
}

// Figures collects the headline figures of runs, in the order they first
// appear.
func Figures(runs []Run) []*Figure {
	index := map[string]*Figure{}
	var out []*Figure
	for ri, r := range runs {
		for _, s := range r.Summaries {
			if !results.Headline(s.Metric) {
				continue
			}
			key := s.Test + "\x00" + s.Metric + "\x00" + Quantity(s.Unit)
			f, ok := index[key]
			if !ok {
				f = &Figure{Test: s.Test, Metric: s.Metric, Unit: s.Unit, Points: map[int][]Point{}}
				index[key] = f
				out = append(out, f)
			}
			if _, seen := f.Points[ri]; !seen {
				f.Runs = append(f.Runs, ri)
			}
			pt := Point{Size: msgSize(s.Labels), Stats: ConvertStats(s.Stats, s.Unit, f.Unit)}
			for _, v := range s.Values {
				pt.Vals = append(pt.Vals, Convert(v, s.Unit, f.Unit))
			}
			f.Sized = f.Sized || pt.Size >= 0
			f.MaxN = max(f.MaxN, s.Stats.N)
			f.Points[ri] = append(f.Points[ri], pt)
		}
	}
	for _, f := range out {
		for _, ri := range f.Runs {
			sort.SliceStable(f.Points[ri], func(i, j int) bool { return f.Points[ri][i].Size < f.Points[ri][j].Size })
		}
	}
	return out
}

// ConvertStats expresses s, in unit from, in unit to.
func ConvertStats(s results.Stats, from, to string) results.Stats {
	if from == to {
		return s
	}
	s.Median, s.Min, s.Max = Convert(s.Median, from, to), Convert(s.Min, from, to), Convert(s.Max, from, to)
	s.Mean, s.Stddev = Convert(s.Mean, from, to), Convert(s.Stddev, from, to)
	return s
}

// HeadlinePoint is a sized figure's one number for bar charts: the value at
// 8 bytes (else the smallest size) for latencies, the peak otherwise, as the
// benchmarks' status does. at is the size it takes (-1 for the peak).
func (f *Figure) HeadlinePoint(ri int) (p Point, at float64, ok bool) {
	pts := f.Points[ri]
	if len(pts) == 0 {
		return Point{}, 0, false
	}
	if !results.LowerIsBetter(f.Metric) {
		best := pts[0]
		for _, p := range pts[1:] {
			if p.Stats.Median > best.Stats.Median {
				best = p
			}
		}
		return best, -1, true
	}
	for _, p := range pts {
		if p.Size == 8 {
			return p, 8, true
		}
	}
	return pts[0], pts[0].Size, true
}
