package page

import (
	"strconv"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
	"github.com/benchwright/benchwright/internal/results"
)

// fitsGrid is the fits as a table: one line per figure, axis and machine type.
func fitsGrid(fits []compare.Fit) *grid {
	g := &grid{header: []string{"test", "metric", "against", "machine type", "runs", "points", "slope", "intercept", "r²"},
		right: []bool{false, false, false, false, true, true, true, true, true}}
	for _, f := range fits {
		unit := results.DisplayUnit(f.Unit)
		g.add(f.Test, f.Metric, f.AxisTitle, orDash(f.Series), strconv.Itoa(len(f.Runs)), strconv.Itoa(len(f.X)),
			figure.WithUnit(figure.FormatFit(f.Slope), figure.SlopeUnit(f)), figure.WithUnit(figure.FormatFit(f.Intercept), unit), figure.FormatR2(f.R2))
	}
	return g
}
