package outcome

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func condition(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason}
}

func TestFinished(t *testing.T) {
	tests := []struct {
		name  string
		conds []metav1.Condition
		want  bool
	}{
		{"no conditions", nil, false},
		{"running", []metav1.Condition{condition(benchv1.ConditionRunning, metav1.ConditionTrue, benchv1.ReasonRunning)}, false},
		{"succeeded", []metav1.Condition{condition(benchv1.ConditionSucceeded, metav1.ConditionTrue, benchv1.ReasonCompleted)}, true},
		{"failed", []metav1.Condition{condition(benchv1.ConditionFailed, metav1.ConditionTrue, benchv1.ReasonTimeout)}, true},
		{"Succeeded False", []metav1.Condition{condition(benchv1.ConditionSucceeded, metav1.ConditionFalse, benchv1.ReasonRunning)}, false},
		{"Failed Unknown", []metav1.Condition{condition(benchv1.ConditionFailed, metav1.ConditionUnknown, benchv1.ReasonRunning)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Finished(&benchv1.BenchmarkStatusCommon{Conditions: tt.conds}); got != tt.want {
				t.Errorf("Finished = %v, want %v", got, tt.want)
			}
		})
	}
}
