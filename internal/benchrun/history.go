package benchrun

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/metrics"
	"github.com/benchwright/benchwright/internal/regress"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// What a history check reads: each headline figure's configuration (at
// most historyConfigs of them), its newest historyRuns runs.
const (
	historyRuns    = 50
	historyConfigs = 200
)

// finding is one figure's verdict.
type finding struct {
	config  resultsdb.Config
	verdict regress.Verdict
	points  []resultsdb.Point
}

// checkHistory sets the Regressed condition: each headline figure of the
// run, just indexed, against the earlier runs of its configuration
// (package regress). indexErr is the indexing's error: the check cannot run.
func (m *machine) checkHistory(ctx context.Context, uid string, indexErr error) {
	if m.ResultsDB == nil {
		return
	}
	verdict, message := m.historyVerdict(ctx, uid, indexErr)
	metrics.HistoryChecks.WithLabelValues(m.kind, verdict).Inc()
	status := map[string]metav1.ConditionStatus{
		benchv1.ReasonRegressed: metav1.ConditionTrue, benchv1.ReasonImproved: metav1.ConditionFalse, benchv1.ReasonSteady: metav1.ConditionFalse,
	}[verdict]
	if status == "" {
		status = metav1.ConditionUnknown
	}
	m.setCondition(benchv1.ConditionRegressed, status, verdict, clip(message))
	switch verdict {
	case benchv1.ReasonRegressed:
		m.Recorder.Event(m.b, corev1.EventTypeWarning, benchv1.ReasonRegressed, clip(message))
	case benchv1.ReasonImproved:
		m.Recorder.Event(m.b, corev1.EventTypeNormal, benchv1.ReasonImproved, clip(message))
	}
}

func (m *machine) historyVerdict(ctx context.Context, uid string, indexErr error) (verdict, message string) {
	if indexErr != nil {
		return benchv1.ReasonHistoryUnavailable, fmt.Sprintf("the results database did not take the run, so it was not checked against its history: %v", indexErr)
	}
	hs, err := m.ResultsDB.RunHistories(ctx, uid, historyRuns, resultsdb.Config.Figure, historyConfigs)
	if err != nil {
		return benchv1.ReasonHistoryUnavailable, fmt.Sprintf("reading the run's history: %v", err)
	}
	var regressed, improved []finding
	checked := 0
	for _, h := range hs {
		i := slices.IndexFunc(h.Points, func(p resultsdb.Point) bool { return p.RunUID == uid })
		if i < 0 {
			continue
		}
		points := h.Points[:i+1] // the run against those before it
		series := make([]float64, len(points))
		for j, p := range points {
			series[j] = p.Median
		}
		v := regress.Check(series, results.LowerIsBetter(h.Config.Metric), regress.Options{})
		if v.Change == regress.TooFew {
			continue
		}
		checked++
		f := finding{config: h.Config, verdict: v, points: points}
		switch v.Change {
		case regress.Regressed:
			regressed = append(regressed, f)
		case regress.Improved:
			improved = append(improved, f)
		}
	}
	byChange := func(fs []finding) {
		slices.SortFunc(fs, func(a, b finding) int {
			return -cmpFloat(math.Abs(a.verdict.Ratio-1), math.Abs(b.verdict.Ratio-1))
		})
	}
	byChange(regressed)
	byChange(improved)
	switch {
	case checked == 0:
		return benchv1.ReasonTooFewRuns, fmt.Sprintf("no headline figure has the %d earlier runs of its configuration a check needs yet", regress.DefaultMinRuns)
	case len(regressed) > 0:
		return benchv1.ReasonRegressed, describeFindings("regressed", regressed, checked, improved)
	case len(improved) > 0:
		return benchv1.ReasonImproved, describeFindings("improved", improved, checked, nil)
	}
	return benchv1.ReasonSteady, fmt.Sprintf("%d headline figure(s) steady against their histories", checked)
}

// describeFindings says which figures changed, the largest first, and the
// runs each was compared with.
func describeFindings(what string, fs []finding, checked int, others []finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d headline figure(s) %s: ", len(fs), checked, what)
	for i, f := range fs[:min(3, len(fs))] {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s", describeConfig(f.config), f.verdict)
		b.WriteString(" against " + describeRuns(f.points, f.verdict.Baseline))
	}
	if len(fs) > 3 {
		fmt.Fprintf(&b, "; and %d more", len(fs)-3)
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, " (%d improved)", len(others))
	}
	return b.String()
}

// describeConfig names a figure: its test, metric and distinguishing labels.
func describeConfig(c resultsdb.Config) string {
	s := c.Test + " " + c.Metric
	if v := c.Labels[results.LabelMsgSize]; v != "" {
		s += " at " + v + " B"
	}
	return s
}

// describeRuns names the runs of idx: their span of time and the first and
// last by name and UID.
func describeRuns(points []resultsdb.Point, idx []int) string {
	if len(idx) == 0 {
		return "no run"
	}
	first, last := points[idx[0]], points[idx[len(idx)-1]]
	name := func(p resultsdb.Point) string { return p.Name + " " + resultsdb.ShortUID(p.RunUID) }
	if len(idx) == 1 {
		return fmt.Sprintf("run %s (%s)", name(first), first.Finished.Format("2006-01-02 15:04"))
	}
	return fmt.Sprintf("%d runs from %s (%s) to %s (%s)", len(idx), name(first), first.Finished.Format("2006-01-02 15:04"),
		name(last), last.Finished.Format("2006-01-02 15:04"))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// historyBaseline looks up a history expectation's baseline: the median of
// the figure's medians over the newest earlier runs of the run's
// configuration, the run being indexed already. The figure is the one
// results.Figure picks from summaries (its message size, if any).
func (m *machine) historyBaseline(ctx context.Context, summaries []results.Summary) func(benchv1.Expectation, int) (float64, int, error) {
	return func(e benchv1.Expectation, runs int) (float64, int, error) {
		if m.ResultsDB == nil {
			return 0, 0, fmt.Errorf("%w (the manager runs without --results-db)", results.ErrNoHistory)
		}
		fig, ok := results.Figure(summaries, e.Test, e.Metric, e.MessageSize)
		if !ok {
			return 0, 0, fmt.Errorf("%w (the run has no such figure)", results.ErrNoHistory)
		}
		uid := string(m.b.GetUID())
		size := fig.Labels[results.LabelMsgSize]
		hs, err := m.ResultsDB.RunHistories(ctx, uid, runs+1, func(c resultsdb.Config) bool {
			return c.Test == e.Test && c.Metric == e.Metric && c.Labels[results.LabelMsgSize] == size
		}, historyConfigs)
		if err != nil {
			return 0, 0, fmt.Errorf("%w (%w)", results.ErrNoHistory, err)
		}
		for _, h := range hs {
			i := slices.IndexFunc(h.Points, func(p resultsdb.Point) bool { return p.RunUID == uid })
			if i <= 0 {
				continue
			}
			earlier := h.Points[max(0, i-runs):i]
			medians := make([]float64, len(earlier))
			for j, p := range earlier {
				medians[j] = p.Median
			}
			return results.Compute(medians).Median, len(medians), nil
		}
		return 0, 0, results.ErrNoHistory
	}
}
