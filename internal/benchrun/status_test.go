package benchrun

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func condition(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason}
}

func TestState(t *testing.T) {
	const (
		yes = metav1.ConditionTrue
		no  = metav1.ConditionFalse
	)
	tests := []struct {
		name  string
		conds []metav1.Condition
		want  benchv1.BenchmarkState
	}{
		{"no conditions", nil, benchv1.StatePending},
		{"Running True", []metav1.Condition{condition(benchv1.ConditionRunning, yes, benchv1.ReasonRunning)}, benchv1.StateRunning},
		{"Running Unknown", []metav1.Condition{condition(benchv1.ConditionRunning, metav1.ConditionUnknown, benchv1.ReasonRunning)}, benchv1.StatePending},
		{"starting", []metav1.Condition{condition(benchv1.ConditionRunning, no, benchv1.ReasonStarting)}, benchv1.StatePending},
		{"volumes pending", []metav1.Condition{condition(benchv1.ConditionRunning, no, benchv1.ReasonVolumesPending)}, benchv1.StatePending},
		{"waiting for the pool", []metav1.Condition{condition(benchv1.ConditionRunning, no, benchv1.ReasonWaitingForPool)}, benchv1.StateWaiting},
		{"waiting for tuning", []metav1.Condition{condition(benchv1.ConditionRunning, no, benchv1.ReasonWaitingForTuning)}, benchv1.StateWaiting},
		{"queued", []metav1.Condition{condition(benchv1.ConditionRunning, no, benchv1.ReasonQueued)}, benchv1.StateWaiting},
		{"evicted, starting again", []metav1.Condition{condition(benchv1.ConditionRunning, no, benchv1.ReasonEvicted)}, benchv1.StatePending},
		{"succeeded", []metav1.Condition{
			condition(benchv1.ConditionRunning, no, benchv1.ReasonCompleted),
			condition(benchv1.ConditionSucceeded, yes, benchv1.ReasonCompleted),
		}, benchv1.StateSucceeded},
		{"failed", []metav1.Condition{
			condition(benchv1.ConditionRunning, no, benchv1.ReasonTimeout),
			condition(benchv1.ConditionFailed, yes, benchv1.ReasonTimeout),
		}, benchv1.StateFailed},
		{"Failed wins over Succeeded", []metav1.Condition{
			condition(benchv1.ConditionSucceeded, yes, benchv1.ReasonCompleted),
			condition(benchv1.ConditionFailed, yes, benchv1.ReasonToolFailed),
		}, benchv1.StateFailed},
		{"Succeeded wins over Running", []metav1.Condition{
			condition(benchv1.ConditionRunning, yes, benchv1.ReasonRunning),
			condition(benchv1.ConditionSucceeded, yes, benchv1.ReasonCompleted),
		}, benchv1.StateSucceeded},
		{"Failed False and Succeeded False do not count", []metav1.Condition{
			condition(benchv1.ConditionRunning, yes, benchv1.ReasonRunning),
			condition(benchv1.ConditionSucceeded, no, benchv1.ReasonRunning),
			condition(benchv1.ConditionFailed, no, benchv1.ReasonRunning),
		}, benchv1.StateRunning},
		{"MeetsExpectations alone says nothing of the state", []metav1.Condition{
			condition(benchv1.ConditionMeetsExpectations, yes, benchv1.ReasonExpectationsMet),
		}, benchv1.StatePending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &benchv1.BenchmarkStatusCommon{Conditions: tt.conds}
			if got := State(st); got != tt.want {
				t.Errorf("State = %q, want %q", got, tt.want)
			}
		})
	}
}
