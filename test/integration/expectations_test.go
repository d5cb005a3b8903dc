package integration

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// A figure compared with a baseline benchmark's: held within the tolerance,
// Unknown while the baseline is missing.
func TestRelativeExpectations(t *testing.T) {
	requireTool(t, "fio")
	env := newStorageEnv(t, nil)
	one := strings.Replace(smallFio, "repetitions: 2", "repetitions: 1", 1)
	base := waitFinished(t, env.createBenchmark(t, "base", one), 60*time.Second)
	if c := condition(t, base, benchv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Fatalf("baseline: %+v", base.Status.Conditions)
	}
	candidate := waitFinished(t, env.createBenchmark(t, "candidate", one+`expectations:
- {test: randread-4k-qd4, metric: read_iops, relative: {baseline: base, tolerance: "99%"}}
- {test: randread-4k-qd4, metric: read_clat_mean, relative: {baseline: base, tolerance: "900%"}}
`), 60*time.Second)
	c := condition(t, candidate, benchv1.ConditionMeetsExpectations)
	if c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonExpectationsMet ||
		!strings.Contains(c.Message, "all 2 expectations hold") || !strings.Contains(c.Message, "(baseline base: ") {
		t.Errorf("MeetsExpectations %+v", c)
	}
	orphan := waitFinished(t, env.createBenchmark(t, "orphan", one+`expectations:
- {test: randread-4k-qd4, metric: read_iops, relative: {baseline: no-such-run}}
`), 60*time.Second)
	if c := condition(t, orphan, benchv1.ConditionMeetsExpectations); c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonBaselineMissing {
		t.Errorf("without a baseline: %+v", c)
	}
}
