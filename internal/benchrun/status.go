package benchrun

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// State is the one-word state for `kubectl get`, derived from the conditions.
func State(st *benchv1.BenchmarkStatusCommon) benchv1.BenchmarkState {
	conds := st.Conditions
	running := meta.FindStatusCondition(conds, benchv1.ConditionRunning)
	switch {
	case meta.IsStatusConditionTrue(conds, benchv1.ConditionFailed):
		return benchv1.StateFailed
	case meta.IsStatusConditionTrue(conds, benchv1.ConditionSucceeded):
		return benchv1.StateSucceeded
	case running != nil && running.Status == metav1.ConditionTrue:
		return benchv1.StateRunning
	case running != nil && (running.Reason == benchv1.ReasonWaitingForPool || running.Reason == benchv1.ReasonWaitingForTuning || running.Reason == benchv1.ReasonQueued):
		return benchv1.StateWaiting
	}
	return benchv1.StatePending
}
