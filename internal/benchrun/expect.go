package benchrun

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// maxConditionMessage keeps the MeetsExpectations message readable.
const maxConditionMessage = 4096

// expect evaluates a finished benchmark's expectations against its summaries
// and sets MeetsExpectations: True when every one holds, False naming the
// failing figures, Unknown while a relative expectation's baseline has not
// finished.
func (m *machine) expect(ctx context.Context, summaries []results.Summary) error {
	exps := m.spec.Expectations
	if len(exps) == 0 {
		return nil
	}
	checks, err := results.Evaluate(exps, summaries, results.Baselines{
		Named:   func(name string) ([]results.Summary, error) { return m.baselineSummaries(ctx, name) },
		History: m.historyBaseline(ctx, summaries),
	})
	switch {
	case errors.Is(err, results.ErrNoHistory):
		m.setCondition(benchv1.ConditionMeetsExpectations, metav1.ConditionUnknown, benchv1.ReasonBaselineMissing,
			clip("a history expectation has no baseline: "+err.Error()))
		return nil
	case errors.Is(err, results.ErrNoBaseline):
		m.setCondition(benchv1.ConditionMeetsExpectations, metav1.ConditionUnknown, benchv1.ReasonBaselineMissing,
			"a relative expectation's baseline has not succeeded yet (or does not exist) in this namespace: checked again when it succeeds")
		return nil
	case err != nil:
		return err
	}
	var failed, held []string
	for _, c := range checks {
		if c.Met {
			held = append(held, c.Describe())
		} else {
			failed = append(failed, c.Describe())
		}
	}
	if len(failed) > 0 {
		m.setCondition(benchv1.ConditionMeetsExpectations, metav1.ConditionFalse, benchv1.ReasonExpectationsFailed,
			clip(fmt.Sprintf("%d of %d expectations fail: %s", len(failed), len(checks), strings.Join(failed, "; "))))
		m.Recorder.Event(m.b, "Warning", benchv1.ReasonExpectationsFailed, clip(strings.Join(failed, "; ")))
		return nil
	}
	m.setCondition(benchv1.ConditionMeetsExpectations, metav1.ConditionTrue, benchv1.ReasonExpectationsMet,
		clip(fmt.Sprintf("all %d expectations hold: %s", len(checks), strings.Join(held, "; "))))
	return nil
}

// baselineSummaries reads the summaries of a succeeded benchmark of the same
// kind in the namespace from its summary.json.
func (m *machine) baselineSummaries(ctx context.Context, name string) ([]results.Summary, error) {
	// A new, empty object of the benchmark's own kind.
	obj := reflect.New(reflect.TypeOf(m.b).Elem()).Interface().(Benchmark)
	st, namespace, kind := obj.BenchmarkStatus(), m.b.GetNamespace(), m.kind
	if err := m.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil, results.ErrNoBaseline
		}
		return nil, err
	}
	if !meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionSucceeded) {
		return nil, results.ErrNoBaseline
	}
	return m.storedSummaries(ctx, kind, namespace, name, string(obj.GetUID()))
}

func clip(s string) string {
	if len(s) > maxConditionMessage {
		return s[:maxConditionMessage-3] + "..."
	}
	return s
}
