package benchrun

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// Succeed ends a benchmark whose repetitions all completed: Succeeded, the
// expectations' verdict, and the run's report.html.
func (e *Env) Succeed(ctx context.Context, obj client.Object, kind string, st *benchv1.BenchmarkStatusCommon, repetitions int32, exps []benchv1.Expectation, summaries []results.Summary) error {
	now := MetaTime(e.Now())
	st.CompletionTime = &now
	msg := fmt.Sprintf("%d repetition(s) completed; results in %s", repetitions, st.ArtifactURI)
	SetCondition(st, obj.GetGeneration(), benchv1.ConditionRunning, metav1.ConditionFalse, benchv1.ReasonCompleted, msg)
	SetCondition(st, obj.GetGeneration(), benchv1.ConditionSucceeded, metav1.ConditionTrue, benchv1.ReasonCompleted, msg)
	if err := e.Expect(ctx, obj, kind, exps, summaries, st); err != nil {
		return err
	}
	if err := e.Run(obj, kind, st.StartTime).WriteReport(ctx); err != nil {
		// The figures are stored; a report that cannot be drawn does not fail them.
		e.Recorder.Eventf(obj, corev1.EventTypeWarning, "ReportFailed", "report.html not written: %v", err)
	}
	e.Recorder.Event(obj, corev1.EventTypeNormal, "Succeeded", msg)
	return nil
}
