//go:build real

package real

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/test/util"
)

// recurring runs a benchmark again and again under one name (one series),
// each time from spec, and returns the Regressed condition of each run.
func recurring(t *testing.T, ns, name string, specs []string) ([]metav1.Condition, []string) {
	t.Helper()
	var (
		out  []metav1.Condition
		uids []string
	)
	for i, spec := range specs {
		b := storageBenchmark(t, ns, name, spec)
		waitSucceeded(t, b, &b.Status.BenchmarkStatusCommon, 3*time.Minute)
		c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionRegressed)
		if c == nil {
			t.Fatalf("run %d has no Regressed condition: %+v", i+1, b.Status.Conditions)
		}
		t.Logf("run %d: Regressed=%s %s: %s", i+1, c.Status, c.Reason, c.Message)
		out, uids = append(out, *c), append(uids, string(b.UID))
		util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
	}
	return out, uids
}

// The manager indexes each succeeded run in its results database (the
// chart's default: SQLite on its artifact volume), and a slowdown injected
// into a benchmark that runs again and again is flagged Regressed, naming
// the figure and the runs compared: five runs of fio capped at 1000 IOPS,
// then three capped at 800 (fio's rate_iops, the throttle a noisy neighbour
// or a smaller disk would be). The first two slower runs are one-offs
// (Outlier) until the third confirms the change.
func TestRegressedOnRealRuns(t *testing.T) {
	ns := newNamespace(t)
	spec := func(rate int) string {
		return fmt.Sprintf(`
nodeSelector: {kubernetes.io/os: linux}
repetitions: 1
volumes: {emptyDir: {}}
fio:
  size: 16M
  runtime: 3s
  jobs:
  - {name: capped-randread, rw: randread, blockSize: 4k, rateIOPS: %d}
`, rate)
	}
	conds, uids := recurring(t, ns, "capped-fio", []string{spec(1000), spec(1000), spec(1000), spec(1000), spec(1000), spec(800), spec(800), spec(800)})
	for i, c := range conds[:5] {
		if c.Reason != benchv1.ReasonTooFewRuns && c.Reason != benchv1.ReasonSteady {
			t.Errorf("steady run %d: %s %s", i+1, c.Reason, c.Message)
		}
	}
	for i, c := range conds[5:7] {
		if c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonOutlier || !strings.Contains(c.Message, "looks like a one-off: -20") {
			t.Errorf("slower run %d of 3: %s %s: %s, want False Outlier", i+1, c.Status, c.Reason, c.Message)
		}
	}
	last := conds[7]
	if last.Status != metav1.ConditionTrue || last.Reason != benchv1.ReasonRegressed ||
		!strings.Contains(last.Message, "capped-randread read_") || !strings.Contains(last.Message, ": Regressed since run capped-fio ") {
		t.Errorf("the third run capped at 800 IOPS: %s %s: %s", last.Status, last.Reason, last.Message)
	}
	var events corev1.EventList
	if err := k8s.List(ctx(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
		return e.Reason == benchv1.ReasonRegressed && e.Type == corev1.EventTypeWarning
	}) {
		t.Error("no Regressed event")
	}

	// `benchwright history` reads the eight runs through its own port-forward
	// to the manager: one configuration, oldest first.
	cli := buildCLI(t)
	history := func(format string) []byte {
		out, err := exec.Command(cli, "history", "--metric", "read_iops", "--test", "capped-randread", "-n", ns, "--format", format,
			"--kubeconfig", env["KUBECONFIG"], "--manager", env["SYSTEM_NAMESPACE"]+"/benchwright-manager").CombinedOutput()
		if err != nil {
			t.Fatalf("benchwright history --format %s: %v\n%s", format, err, out)
		}
		return out
	}
	t.Logf("benchwright history --metric read_iops --test capped-randread -n %s:\n%s", ns, history("text"))
	var hs []resultsdb.History
	if err := json.Unmarshal(history("json"), &hs); err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Config.Series != "capped-fio" || hs[0].Config.Namespace != ns || len(hs[0].Points) != 8 {
		t.Fatalf("want one configuration with eight runs: %+v", hs)
	}
	for i, p := range hs[0].Points {
		if p.RunUID != uids[i] || p.N != 1 || p.Median <= 0 {
			t.Errorf("point %d: %+v, want run %s's median", i, p, uids[i])
		}
	}
}

// How much a run's median varies from run to run here, where the detector's
// synthetic figures take their noise from (make history-noise-real; not in
// CI): fio 4k random reads, uncapped, RUNS times (default 8), and the
// coefficient of variation of the runs' medians.
func TestRunToRunNoise(t *testing.T) {
	runs := 8
	if v, err := strconv.Atoi(os.Getenv("RUNS")); err == nil && v >= 3 {
		runs = v
	}
	ns := newNamespace(t)
	spec := `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 3
volumes: {emptyDir: {}}
fio:
  size: 64M
  runtime: 5s
  jobs:
  - {name: noise-randread, rw: randread, blockSize: 4k, ioDepth: 16}
`
	specs := make([]string, runs)
	for i := range specs {
		specs[i] = spec
	}
	recurring(t, ns, "noise-fio", specs)
	out, err := exec.Command(buildCLI(t), "history", "--metric", "read_iops", "-n", ns, "--format", "json",
		"--kubeconfig", env["KUBECONFIG"], "--manager", env["SYSTEM_NAMESPACE"]+"/benchwright-manager").CombinedOutput()
	if err != nil {
		t.Fatalf("benchwright history: %v\n%s", err, out)
	}
	var hs []resultsdb.History
	if err := json.Unmarshal(out, &hs); err != nil || len(hs) != 1 || len(hs[0].Points) != runs {
		t.Fatalf("want one configuration of %d runs: %v\n%s", runs, err, out)
	}
	var medians, withinCV []float64
	for _, p := range hs[0].Points {
		medians = append(medians, p.Median)
		withinCV = append(withinCV, p.StdDev/p.Mean)
	}
	t.Logf("fio randread 4k QD16 read_iops, %d runs' medians: %v", runs, medians)
	t.Logf("run-to-run CV of the medians: %.1f %%; CV within a run (3 repetitions), median over runs: %.1f %%",
		results.Compute(medians).CV, 100*results.Compute(withinCV).Median)
}
