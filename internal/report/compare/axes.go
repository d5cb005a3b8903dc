package compare

import (
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// isAxis tells whether a sample label is a numeric axis a report can plot
// figures against: the CPU frequency, or a user's benchwright.io/x-NAME
// benchmark label (x-NAME on the samples).
func isAxis(key string) bool {
	return key == results.LabelCPUMHz || strings.HasPrefix(key, results.LabelAxisPrefix)
}

// AxisTitle is how an axis reads under a plot: "CPU frequency (MHz)", or the
// user's name with spaces.
func AxisTitle(key string) string {
	if key == results.LabelCPUMHz {
		return "CPU frequency (MHz)"
	}
	return strings.NewReplacer("-", " ", "_", " ").Replace(strings.TrimPrefix(key, results.LabelAxisPrefix))
}

// axisSum gathers one axis label over a run's counted samples.
type axisSum struct {
	sum float64
	n   int
	bad bool // a value that is not a number
}

// addAxes counts the axis labels of one counted sample.
func (a *acc) addAxes(labels map[string]string) {
	for k, v := range labels {
		if !isAxis(k) {
			continue
		}
		if a.axes == nil {
			a.axes = map[string]*axisSum{}
		}
		s := a.axes[k]
		if s == nil {
			s = &axisSum{}
			a.axes[k] = s
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || x != x || x > 1e300 || x < -1e300 {
			s.bad = true
			continue
		}
		s.sum += x
		s.n++
	}
}

// axisValues are the run's axes: the mean of each label every counted sample
// has as a number.
func (a *acc) axisValues() map[string]float64 {
	var out map[string]float64
	for k, s := range a.axes {
		if s.bad || s.n != len(a.counted) {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[k] = s.sum / float64(s.n)
	}
	return out
}
