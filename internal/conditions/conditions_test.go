package conditions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Every kind is a Setter.
var _ = []Setter{&benchv1.StorageBenchmark{}, &benchv1.MPIBenchmark{}, &benchv1.NetworkBenchmark{}, &benchv1.BenchmarkPool{}, &benchv1.TuningProfile{}}

func TestSetStampsTheGenerationAndKeepsTheTransitionTime(t *testing.T) {
	p := &benchv1.TuningProfile{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	Set(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, "Applying", "0 of 2")
	first := Get(p, benchv1.TuningConditionTuned).LastTransitionTime
	p.Generation = 4
	Set(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, "Applying", "1 of 2")
	c := Get(p, benchv1.TuningConditionTuned)
	if c.ObservedGeneration != 4 || c.Message != "1 of 2" || !c.LastTransitionTime.Equal(&first) {
		t.Fatalf("condition %+v, want generation 4, the new message and the first transition time %v", c, first)
	}
	if IsTrue(p, benchv1.TuningConditionTuned) || len(p.Status.Conditions) != 1 {
		t.Fatalf("conditions %+v", p.Status.Conditions)
	}
	Set(p, benchv1.TuningConditionTuned, metav1.ConditionTrue, "AllApplied", "2 of 2")
	if !IsTrue(p, benchv1.TuningConditionTuned) {
		t.Fatal("Tuned is not True after Set True")
	}
}

// Moved from internal/benchrun: the transition time moves only with the
// status, the generation with every set.
func TestSetCondition(t *testing.T) {
	b := &benchv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
	Set(b, benchv1.ConditionRunning, metav1.ConditionFalse, benchv1.ReasonStarting, "repetition 1/3 is starting")
	Set(b, benchv1.ConditionMeetsExpectations, metav1.ConditionTrue, benchv1.ReasonExpectationsMet, "all hold")
	st := &b.Status
	if st.Conditions[0].LastTransitionTime.IsZero() {
		t.Errorf("lastTransitionTime is not set")
	}
	first := st.Conditions[0].LastTransitionTime
	// Same status, later generation: reason, message and generation change.
	b.Generation = 2
	Set(b, benchv1.ConditionRunning, metav1.ConditionFalse, benchv1.ReasonEvicted, "repetition 1/3 is starting again")
	if got := st.Conditions[0].LastTransitionTime; !got.Equal(&first) {
		t.Errorf("lastTransitionTime moved from %v to %v without a status change", first, got)
	}
	// Status change.
	b.Generation = 3
	Set(b, benchv1.ConditionRunning, metav1.ConditionTrue, benchv1.ReasonRunning, "repetition 1/3 is running")
	want := []metav1.Condition{
		{Type: benchv1.ConditionRunning, Status: metav1.ConditionTrue, Reason: benchv1.ReasonRunning, Message: "repetition 1/3 is running", ObservedGeneration: 3},
		{Type: benchv1.ConditionMeetsExpectations, Status: metav1.ConditionTrue, Reason: benchv1.ReasonExpectationsMet, Message: "all hold", ObservedGeneration: 1},
	}
	if diff := cmp.Diff(want, st.Conditions, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}
