// Package outcome is how a benchmark ends: Failed with a reason and a
// message (an Outcome, returned as an error from wherever the failure is
// found), and whether it has ended (Finished).
package outcome

import (
	"k8s.io/apimachinery/pkg/api/meta"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Outcome ends a benchmark: Failed with the reason and message. Any other
// error of a reconcile is retried with backoff.
type Outcome struct {
	Reason, Message string
}

func (o *Outcome) Error() string { return o.Reason + ": " + o.Message }

// Fail returns an Outcome error.
func Fail(reason, message string) error { return &Outcome{Reason: reason, Message: message} }

// Finished tells whether the benchmark reached Succeeded or Failed.
func Finished(st *benchv1.BenchmarkStatusCommon) bool {
	return meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionSucceeded) ||
		meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionFailed)
}
