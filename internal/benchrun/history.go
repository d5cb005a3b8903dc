package benchrun

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/historycheck"
	"github.com/benchwright/benchwright/internal/metrics"
	"github.com/benchwright/benchwright/internal/regress"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// checkHistory sets the Regressed condition: the run's headline figures,
// just indexed, against the earlier runs of their configurations, together
// (package historycheck). indexErr is the indexing's error: the check
// cannot run.
func (m *machine) checkHistory(ctx context.Context, uid string, indexErr error) {
	if m.ResultsDB == nil {
		return
	}
	verdict, message := m.historyVerdict(ctx, uid, indexErr)
	metrics.HistoryChecks.WithLabelValues(m.kind, verdict).Inc()
	status := map[string]metav1.ConditionStatus{
		benchv1.ReasonRegressed: metav1.ConditionTrue, benchv1.ReasonImproved: metav1.ConditionFalse,
		benchv1.ReasonSteady: metav1.ConditionFalse, benchv1.ReasonOutlier: metav1.ConditionFalse,
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
	res, err := historycheck.Run(ctx, m.ResultsDB, uid)
	if err != nil {
		return benchv1.ReasonHistoryUnavailable, err.Error()
	}
	return reasonOf(res.Verdict.Change), res.Message
}

// reasonOf is the Regressed condition's reason for a verdict.
func reasonOf(c regress.Change) string {
	switch c {
	case regress.Regressed:
		return benchv1.ReasonRegressed
	case regress.Improved:
		return benchv1.ReasonImproved
	case regress.Outlier:
		return benchv1.ReasonOutlier
	case regress.Steady:
		return benchv1.ReasonSteady
	}
	return benchv1.ReasonTooFewRuns
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
		}, historycheck.MaxConfigs)
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
