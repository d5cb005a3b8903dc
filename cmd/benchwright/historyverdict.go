package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/historycheck"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// verdictView is a configuration's verdict at its newest run, with its runs
// named and its levels computed: what --check prints in every format.
type verdictView struct {
	Configuration string   `json:"configuration"`
	Run           string   `json:"run"`
	Verdict       string   `json:"verdict"`
	Method        string   `json:"method,omitempty"`
	Since         string   `json:"since,omitempty"`
	Change        *float64 `json:"change,omitempty"`
	ChangeLow     *float64 `json:"change_low,omitempty"`
	ChangeHigh    *float64 `json:"change_high,omitempty"`
	P             *float64 `json:"p,omitempty"`
	LevelBefore   *float64 `json:"level_before,omitempty"`
	LevelAfter    *float64 `json:"level_after,omitempty"`
	ChangePoints  []string `json:"change_points"`
	Outliers      []string `json:"outliers"`
	Noise         float64  `json:"noise"`
	Detectable    float64  `json:"detectable"`
	// Benchmark is the run's verdict over all its headline figures (the
	// manager's Regressed condition), Message its words.
	Benchmark string `json:"benchmark"`
	Message   string `json:"message"`
}

func viewOf(f historycheck.Finding, res historycheck.Result) verdictView {
	v, pts := f.Verdict, f.History.Points
	name := func(i int) string {
		if i < 0 || i >= len(pts) {
			return "?"
		}
		return runName(pts[i])
	}
	level := func(idx []int) *float64 {
		if len(idx) == 0 {
			return nil
		}
		m := make([]float64, len(idx))
		for i, j := range idx {
			m[i] = pts[j].Median
		}
		x := results.Compute(m).Median
		return &x
	}
	pct := func(r float64) *float64 { x := 100 * (r - 1); return &x }
	out := verdictView{Configuration: f.History.Config.String(), Run: name(len(pts) - 1), Verdict: string(v.Change),
		Method: v.Method, Noise: 100 * v.Noise, Detectable: 100 * v.Detectable,
		Benchmark: string(res.Verdict.Change), Message: res.Message, ChangePoints: []string{}, Outliers: []string{}}
	if v.Ratio != 0 {
		out.Since, out.Change, out.P = name(v.Since), pct(v.Ratio), &v.P
		if v.Low != 0 {
			out.ChangeLow, out.ChangeHigh = pct(v.Low), pct(v.High)
		}
		out.LevelBefore, out.LevelAfter = level(v.Baseline), level(v.After)
	}
	for _, i := range v.ChangePoints {
		out.ChangePoints = append(out.ChangePoints, name(i))
	}
	for _, i := range v.Outliers {
		out.Outliers = append(out.Outliers, name(i))
	}
	return out
}

// writeFinding prints a configuration's verdict under its table.
func writeFinding(w io.Writer, f historycheck.Finding, res historycheck.Result) {
	v := viewOf(f, res)
	fmt.Fprintf(w, "  verdict at %s: %s\n", v.Run, f.Verdict.Describe(func(i int) string { return runName(f.History.Points[i]) }))
	if v.LevelBefore != nil && v.LevelAfter != nil {
		fmt.Fprintf(w, "  level: %s before, %s after\n", results.FormatValue(*v.LevelBefore), results.FormatValue(*v.LevelAfter))
	}
	if len(v.ChangePoints) > 0 {
		fmt.Fprintf(w, "  change points: from %s\n", strings.Join(v.ChangePoints, "; from "))
	}
	if len(v.Outliers) > 0 {
		fmt.Fprintf(w, "  one-offs (left out of the baseline): %s\n", strings.Join(v.Outliers, "; "))
	}
	if v.Detectable > 0 {
		fmt.Fprintf(w, "  noise: %.1f%% run to run; the smallest change it detects within 3 runs (90 %% of the time): %.1f%%\n", v.Noise, v.Detectable)
	}
	if res.Verdict.Change != f.Verdict.Change || res.Verdict.Method != f.Verdict.Method {
		fmt.Fprintf(w, "  the run over its %d headline figure(s): %s\n", len(res.Findings), res.Message)
	}
}

// checkedJSON is each history with its verdict.
func checkedJSON(hs []resultsdb.History, checks map[string]historycheck.Result) []any {
	type item struct {
		resultsdb.History
		Check *verdictView `json:"check,omitempty"`
	}
	out := []any{}
	for _, h := range hs {
		it := item{History: h}
		if f, ok := checked(h, checks); ok {
			v := viewOf(f, checks[h.Points[len(h.Points)-1].RunUID])
			it.Check = &v
		}
		out = append(out, it)
	}
	return out
}

// writeChecksCSV writes a row per configuration: its verdict.
func writeChecksCSV(w io.Writer, hs []resultsdb.History, checks map[string]historycheck.Result) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"configuration", "run", "verdict", "method", "since", "change_pct", "change_low_pct", "change_high_pct", "p",
		"level_before", "level_after", "change_points", "outliers", "noise_pct", "detectable_pct", "benchmark_verdict"})
	f := func(x *float64) string {
		if x == nil {
			return ""
		}
		return strconv.FormatFloat(*x, 'g', 6, 64)
	}
	for _, h := range hs {
		fd, ok := checked(h, checks)
		if !ok {
			continue
		}
		v := viewOf(fd, checks[h.Points[len(h.Points)-1].RunUID])
		_ = cw.Write([]string{v.Configuration, v.Run, v.Verdict, v.Method, v.Since, f(v.Change), f(v.ChangeLow), f(v.ChangeHigh), f(v.P),
			f(v.LevelBefore), f(v.LevelAfter), strings.Join(v.ChangePoints, ";"), strings.Join(v.Outliers, ";"),
			strconv.FormatFloat(v.Noise, 'f', 2, 64), strconv.FormatFloat(v.Detectable, 'f', 2, 64), v.Benchmark})
	}
	cw.Flush()
	return cw.Error()
}
