package report

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/benchwright/benchwright/internal/results"
)

// csvColumns are the columns of WriteCSV, in a fixed order.
var csvColumns = []string{"run", "kind", "namespace", "benchmark", "run_uid", "machine_type", "test", "metric",
	"msg_size", "unit", "lower_is_better", "n", "median", "min", "max", "mean", "stddev", "cv_percent"}

// WriteCSV writes one line per run, test, metric and message size with all
// its statistics; numbers are exact (shortest round-trip form), in the
// tools' units.
func WriteCSV(w io.Writer, runs []Run, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvColumns); err != nil {
		return err
	}
	for _, row := range rows {
		r, s := runs[row.Run], row.Stats
		rec := []string{r.Name, r.Kind, r.Namespace, r.Benchmark, r.RunUID, r.MachineType, row.Test, row.Metric,
			row.MsgSize, row.Unit, strconv.FormatBool(results.LowerIsBetter(row.Metric)), strconv.Itoa(s.N),
			num(s.Median), num(s.Min), num(s.Max), num(s.Mean), num(s.Stddev), num(s.CV)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// compareColumns are the columns of WriteCompareCSV.
var compareColumns = []string{"baseline", "run", "test", "metric", "msg_size", "unit", "lower_is_better",
	"median", "baseline_median", "ratio_kind", "ratio", "ratio_low", "ratio_high", "cv", "baseline_cv", "unclear", "noisy"}

// WriteCompareCSV writes the comparison long-form: one line per figure and
// run that has it (the baseline's included, ratio 1), medians in the row's
// unit; ratio_kind says how ratio divides (speedup or value); ratio is
// empty where the baseline lacks the figure, ratio_low and ratio_high (the
// 95% bootstrap interval) where either run has fewer than two repetitions.
func WriteCompareCSV(w io.Writer, runs []Run, baseline int, rows []CompareRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(compareColumns); err != nil {
		return err
	}
	for _, row := range rows {
		for i, m := range row.Medians {
			if math.IsNaN(m) {
				continue
			}
			rec := []string{runs[baseline].Name, runs[i].Name, row.Test, row.Metric, row.MsgSize, row.Unit,
				strconv.FormatBool(row.LowerIsBetter), num(m), num(row.Medians[baseline]),
				string(row.Ratio), num(row.Speedups[i]), num(row.Intervals[i].Lo), num(row.Intervals[i].Hi),
				num(row.CVs[i]), num(row.CVs[baseline]), strconv.FormatBool(row.Unclear[i]), strconv.FormatBool(row.Noisy[i])}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// num is a number in its shortest exact form, "" for none.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// fitsColumns are the columns of WriteFitsCSV.
var fitsColumns = []string{"test", "metric", "unit", "axis", "machine_type", "runs", "points", "slope", "intercept", "r2"}

// WriteFitsCSV writes one line per fit: the figure, the axis label, the
// machine type, how many runs and points, and the line (slope in the unit
// per axis unit), numbers exact; empty where there is no line.
func WriteFitsCSV(w io.Writer, fits []Fit) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(fitsColumns); err != nil {
		return err
	}
	for _, f := range fits {
		rec := []string{f.Test, f.Metric, f.Unit, f.Axis, f.Series, strconv.Itoa(len(f.Runs)), strconv.Itoa(len(f.X)),
			num(f.Slope), num(f.Intercept), num(f.R2)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
