package compare

import (
	"time"
)

// Trend is a configuration's runs over time, for a plot.
type Trend struct {
	Title, Metric, Unit string
	// Points are the runs, oldest first.
	Points []TrendPoint
	// Changes are the indexes of the first runs after each change point.
	Changes []int
}

// TrendPoint is a run: when it finished, its median over its repetitions
// and their range.
type TrendPoint struct {
	Finished         time.Time
	Median, Min, Max float64
}
