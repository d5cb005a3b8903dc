package benchrun

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/metrics"
	"github.com/benchwright/benchwright/internal/outcome"
)

// observeDurations records a benchmark's queue time when the status write
// just made set its startTime (it had none before), and its run time when
// that write finished it. Reconcile calls it only after a successful write,
// and never reconciles a finished benchmark: a write from an out-of-date
// read fails with a conflict, so each duration is observed once.
func (e *Env) observeDurations(obj client.Object, wasStarted bool, st *benchv1.BenchmarkStatusCommon) {
	if st.StartTime == nil {
		return // failed before it started: it neither queued to the end nor ran
	}
	kind := e.kindOf(obj)
	if !wasStarted {
		metrics.ObserveQueued(kind, obj.GetCreationTimestamp().Time, st.StartTime.Time)
	}
	if outcome.Finished(st) && st.CompletionTime != nil {
		metrics.ObserveRun(kind, st.StartTime.Time, st.CompletionTime.Time)
	}
}

// kindOf is obj's kind, from the scheme when there is one.
func (e *Env) kindOf(obj client.Object) string {
	if e.Scheme != nil {
		if gvk, err := apiutil.GVKForObject(obj, e.Scheme); err == nil {
			return gvk.Kind
		}
	}
	return obj.GetObjectKind().GroupVersionKind().Kind
}
