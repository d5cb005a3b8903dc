package page

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/benchmath"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// csvColumns are the columns of WriteCSV, in a fixed order.
var csvColumns = []string{"run", "kind", "namespace", "benchmark", "run_uid", "machine_type", "test", "metric",
	"msg_size", "unit", "lower_is_better", "n", "median", "min", "max", "mean", "stddev", "cv_percent"}

// WriteCSV writes one line per run, test, metric and message size with all
// its statistics; numbers are exact (shortest round-trip form), in the
// tools' units (bit rates in MB/s: see compare.InReportUnit).
func WriteCSV(w io.Writer, runs []compare.Run, rows []compare.RunFigure) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvColumns); err != nil {
		return err
	}
	for _, row := range rows {
		if err := cw.Write(figureRecord(runs, row)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// figureRecord is a figure's line of csvColumns.
func figureRecord(runs []compare.Run, row compare.RunFigure) []string {
	r, s := runs[row.Run], row.Stats
	return []string{r.Name, r.Kind, r.Namespace, r.Benchmark, r.RunUID, r.MachineType, row.Test, row.Metric,
		row.MsgSize, row.Unit, strconv.FormatBool(results.LowerIsBetter(row.Metric)), strconv.Itoa(s.N),
		num(s.Median), num(s.Min), num(s.Max), num(s.Mean), num(s.Stddev), num(s.CV)}
}

// alongColumns follow csvColumns in a report's CSV: a figure compared along
// a dimension, within its group.
var alongColumns = []string{"dimension", "value", "group", "baseline", "ratio_kind", "ratio", "ratio_low", "ratio_high",
	"p", "p_adjusted", "need", "unclear", "noisy", "step_ratio", "note"}

// CSV writes the report's figures as the package's WriteCSV does, each
// line's comparison columns empty, then a line per figure of each run
// compared along a dimension: the dimension, the run's value of it, its
// group (the other dimensions' values, k=v), the baseline's run, the ratio
// as WriteCompareCSV's (the baseline's own is 1), step_ratio for a ladder
// (to the step before) and a note where the group has no baseline run.
// Medians are in the row's unit, with only median and cv_percent set.
func (r *Report) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	beside := anyBeside(r.Runs)
	if err := cw.Write(append(slices.Clone(csvColumns), alongHeader(beside)...)); err != nil {
		return err
	}
	blank := make([]string, len(alongHeader(beside)))
	for _, row := range r.Rows {
		if err := cw.Write(append(figureRecord(r.Runs, row), blank...)); err != nil {
			return err
		}
	}
	for _, a := range r.Along {
		for _, rec := range alongRecords(r.Runs, a, beside) {
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteAlongCSV writes comparisons along dimensions as a report's CSV does,
// without the figures' own lines.
func WriteAlongCSV(w io.Writer, runs []compare.Run, along []compare.Along) error {
	cw := csv.NewWriter(w)
	beside := anyBeside(runs)
	if err := cw.Write(append(slices.Clone(csvColumns), alongHeader(beside)...)); err != nil {
		return err
	}
	for _, a := range along {
		for _, rec := range alongRecords(runs, a, beside) {
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// besideColumn ends the comparisons' CSV lines when a run was not alone
// on its machine: "shared" (the run or its baseline ran while another run
// ran on the same machine), "disturbed" (others used its machine's CPU),
// both, or empty. Reports of runs without the facts have no such column.
const besideColumn = "beside"

// anyBeside says whether a run was not alone on its machine.
func anyBeside(runs []compare.Run) bool {
	return slices.ContainsFunc(runs, func(r compare.Run) bool { return r.Beside.Marked() })
}

// alongHeader are alongColumns, and besideColumn with beside.
func alongHeader(beside bool) []string {
	if beside {
		return append(slices.Clone(alongColumns), besideColumn)
	}
	return alongColumns
}

// alongRecords are the CSV lines of a comparison along a dimension, with
// besideColumn when beside.
func alongRecords(runs []compare.Run, a compare.Along, beside bool) [][]string {
	d := a.Dimension
	var out [][]string
	for _, g := range a.Groups {
		var group []string
		for i, o := range a.Others {
			group = append(group, o+"="+g.Key[i])
		}
		base, bv := "", slices.Index(d.Values, d.Baseline)
		if g.Missing == "" {
			base = runs[g.Runs[bv]].Name
		}
		for i, row := range g.Rows {
			for v, ri := range g.Runs {
				if ri < 0 || math.IsNaN(row.Medians[v]) {
					continue
				}
				r := runs[ri]
				rec := []string{r.Name, r.Kind, r.Namespace, r.Benchmark, r.RunUID, r.MachineType, row.Test, row.Metric,
					row.MsgSize, row.Unit, strconv.FormatBool(row.LowerIsBetter), "", num(row.Medians[v]), "", "", "", "", num(row.CVs[v]),
					d.Name, d.Values[v], strings.Join(group, " "), base, string(row.Ratio), num(row.Speedups[v]),
					num(row.Verdicts[v].Interval.Lo), num(row.Verdicts[v].Interval.Hi), num(row.Verdicts[v].P), num(row.Verdicts[v].AdjustedP), need(row.Verdicts[v]),
					strconv.FormatBool(row.Undecided(v)), strconv.FormatBool(row.Noisy[v]), "", g.Missing}
				if a.Ladder {
					rec[len(rec)-2] = num(g.Steps[i].Speedups[v])
				}
				if beside {
					rec = append(rec, groupWords(g, v, bv))
				}
				out = append(out, rec)
			}
		}
	}
	return out
}

// compareColumns are the columns of WriteCompareCSV.
var compareColumns = []string{"baseline", "run", "test", "metric", "msg_size", "unit", "lower_is_better",
	"median", "baseline_median", "ratio_kind", "ratio", "ratio_low", "ratio_high", "p", "p_adjusted", "need", "cv", "baseline_cv", "unclear", "noisy"}

// WriteCompareCSV writes the comparison long-form: one line per figure and
// run that has it (the baseline's included, ratio 1), medians in the row's
// unit; ratio_kind says how ratio divides (speedup or value); ratio is
// empty where the baseline lacks the figure, ratio_low and ratio_high (the
// ratio's 95 % interval, benchmath's) where the repetitions are too few
// for it; p is the U test's, p_adjusted over the table (Benjamini-Hochberg),
// need the repetitions a side that would decide an undecided one, unclear
// whether it is undecided.
func WriteCompareCSV(w io.Writer, runs []compare.Run, baseline int, rows []compare.Row) error {
	cw := csv.NewWriter(w)
	beside := anyBeside(runs)
	header := compareColumns
	if beside {
		header = append(slices.Clone(compareColumns), besideColumn)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, row := range rows {
		for i, m := range row.Medians {
			if math.IsNaN(m) {
				continue
			}
			rec := []string{runs[baseline].Name, runs[i].Name, row.Test, row.Metric, row.MsgSize, row.Unit,
				strconv.FormatBool(row.LowerIsBetter), num(m), num(row.Medians[baseline]),
				string(row.Ratio), num(row.Speedups[i]), num(row.Verdicts[i].Interval.Lo), num(row.Verdicts[i].Interval.Hi),
				num(row.Verdicts[i].P), num(row.Verdicts[i].AdjustedP), need(row.Verdicts[i]),
				num(row.CVs[i]), num(row.CVs[baseline]), strconv.FormatBool(row.Undecided(i)), strconv.FormatBool(row.Noisy[i])}
			if beside {
				rec = append(rec, besideWords(runs[i].Beside, runs[baseline].Beside))
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// need is the repetitions a side that would decide an undecided verdict,
// "" when decided or unknown, "none" when the sides show no change.
func need(v benchmath.Verdict) string {
	switch {
	case v.Need == benchmath.NoChange:
		return "none"
	case v.Need > 0:
		return strconv.Itoa(v.Need)
	}
	return ""
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
func WriteFitsCSV(w io.Writer, fits []compare.Fit) error {
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
