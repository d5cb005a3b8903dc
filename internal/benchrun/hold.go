package benchrun

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
)

// waitRetry is how often a waiting benchmark looks again.
const waitRetry = 5 * time.Second

// hold keeps a benchmark that has not started yet until nothing blocks it
// (its pool Ready, its tuning profile Tuned, no other benchmark ahead of it
// on the pool: see poolqueue.Turns), recording the wait (Running False
// with the reason, the queue position). A wait longer than
// timeouts.waitForNodes (from the benchmark's creation) fails it with
// Timeout. held tells the caller to return res; a started benchmark is
// never held.
func (m *machine) hold(ctx context.Context) (held bool, res ctrl.Result, err error) {
	if m.st.StartTime != nil {
		return false, ctrl.Result{}, nil
	}
	w, err := turns.Blocked(ctx, m.Client, m.b, m.kind, m.spec.Placement)
	if err != nil {
		return true, ctrl.Result{}, err
	}
	if w == nil {
		m.st.QueuePosition = 0
		return false, ctrl.Result{}, nil
	}
	if limit := waitForNodesTimeout(m.spec.Timeouts); m.Now().Sub(m.b.GetCreationTimestamp().Time) > limit {
		return true, ctrl.Result{}, outcome.Fail(benchv1.ReasonTimeout, fmt.Sprintf("waited longer than %s (spec.timeouts.waitForNodes): %s", limit, w.Message))
	}
	m.setRunning(metav1.ConditionFalse, w.Reason, w.Message)
	m.st.QueuePosition = w.Position
	return true, ctrl.Result{RequeueAfter: waitRetry}, nil
}
