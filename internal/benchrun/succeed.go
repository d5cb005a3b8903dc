package benchrun

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/internal/runstore"
	"github.com/benchwright/benchwright/internal/statusupdate"
)

// succeed ends a benchmark whose repetitions all completed: Succeeded, the
// expectations' verdict, and the run's report.html. Its event adds note, the
// figures so far.
func (m *machine) succeed(ctx context.Context, summaries []results.Summary, note string) error {
	now := statusupdate.MetaTime(m.Now())
	m.st.CompletionTime = &now
	msg := fmt.Sprintf("%d repetition(s) completed; results in %s", m.spec.Repetitions, m.st.ArtifactURI)
	m.setRunning(metav1.ConditionFalse, benchv1.ReasonCompleted, msg)
	m.setCondition(benchv1.ConditionSucceeded, metav1.ConditionTrue, benchv1.ReasonCompleted, msg)
	run := m.run()
	if err := run.PutSucceeded(ctx, now.Time); err != nil {
		return err
	}
	indexErr := m.index(ctx, run)
	// After indexing: a history expectation reads the runs before this one.
	if err := m.expect(ctx, summaries); err != nil {
		return err
	}
	m.checkHistory(ctx, run.Location.UID, indexErr)
	if err := run.WriteReport(ctx); err != nil {
		// The figures are stored; a report that cannot be drawn does not fail them.
		m.Recorder.Eventf(m.b, corev1.EventTypeWarning, "ReportFailed", "report.html not written: %v", err)
	}
	m.Recorder.Event(m.b, corev1.EventTypeNormal, "Succeeded", fmt.Sprintf("%d repetition(s) completed%s; results in %s", m.spec.Repetitions, note, m.st.ArtifactURI))
	return nil
}

// index adds the run to the results database. A database that cannot take
// it does not fail the figures: an event and the Regressed condition say
// so, and the manager's next backfill adds the run (its outcome.json is
// stored).
func (m *machine) index(ctx context.Context, run runstore.Run) error {
	if m.ResultsDB == nil {
		return nil
	}
	prefix, err := run.Location.Prefix()
	if err == nil {
		_, err = resultsdb.IndexStored(ctx, m.ResultsDB, run.Store, prefix)
	}
	if err != nil {
		m.Recorder.Eventf(m.b, corev1.EventTypeWarning, "IndexFailed", "not in the results database yet (the next backfill adds it): %v", err)
	}
	return err
}
