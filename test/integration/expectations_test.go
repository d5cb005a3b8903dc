package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
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

// A benchmark that succeeds before its baseline (a campaign's cells end in
// any order) waits, Unknown, and is checked when the baseline succeeds: a
// ratio to it that holds, and one that fails.
func TestRelativeExpectationsWaitForTheBaseline(t *testing.T) {
	requireTool(t, "fio")
	env := newStorageEnv(t, nil)
	one := strings.Replace(smallFio, "repetitions: 2", "repetitions: 1", 1)
	early := waitFinished(t, env.createBenchmark(t, "early", one+`expectations:
- {test: randread-4k-qd4, metric: read_iops, relative: {baseline: later, atLeast: 0.01, atMost: 100}}
`), 60*time.Second)
	if c := condition(t, early, benchv1.ConditionMeetsExpectations); c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonBaselineMissing {
		t.Fatalf("before its baseline: %+v", c)
	}
	failing := waitFinished(t, env.createBenchmark(t, "failing", one+`expectations:
- {test: randread-4k-qd4, metric: read_iops, relative: {baseline: later, atLeast: 1000}}
`), 60*time.Second)
	waitFinished(t, env.createBenchmark(t, "later", one), 60*time.Second)
	for _, tc := range []struct {
		b      *benchv1.StorageBenchmark
		status metav1.ConditionStatus
		text   string
	}{{early, metav1.ConditionTrue, "x baseline later's"}, {failing, metav1.ConditionFalse, "x the baseline, below 1000x"}} {
		util.WaitFor(t, 30*time.Second, tc.b.Name+"'s expectations checked", func() (bool, string) {
			got := &benchv1.StorageBenchmark{}
			if err := k8sClient.Get(context.Background(), clientKey(tc.b), got); err != nil {
				t.Fatal(err)
			}
			c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionMeetsExpectations)
			return c != nil && c.Status == tc.status && strings.Contains(c.Message, tc.text), fmt.Sprintf("%+v", c)
		})
	}
}
