package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/test/util"
)

// fioIOPS is a figure of fio's JSON: "iops" : 1234.567.
var fioIOPS = regexp.MustCompile(`"iops" : [0-9.]+`)

// A benchmark run again and again is checked against its own history: five
// runs of one fio output (its IOPS within 0.4 %) are Steady or too few to
// tell, a sixth and seventh at 80 % of that IOPS are one-offs (Outlier),
// and the eighth like them confirms: Regressed, the condition and the event
// naming the figure and the runs it was compared with. The real
// fio runs; its first output is replayed, so that only the IOPS change.
func TestStorageBenchmarkRegressedAgainstItsHistory(t *testing.T) {
	requireTool(t, "fio")
	createNode(t, "node-a", "n2-standard-4")
	ns := testNamespace(t, "sb-")
	kubelet := newFakeKubelet(t, ns)
	var (
		mu    sync.Mutex
		first []byte
		scale = 1.0
	)
	kubelet.hook = func(*batchv1.Job) podFate {
		return podFate{mangle: func(c string, out []byte) []byte {
			if c != "fio" {
				return out
			}
			mu.Lock()
			defer mu.Unlock()
			if first == nil {
				first = out
			}
			return fioIOPS.ReplaceAllFunc(first, func(m []byte) []byte {
				v, _ := strconv.ParseFloat(strings.TrimPrefix(string(m), `"iops" : `), 64)
				return fmt.Appendf(nil, `"iops" : %.3f`, v*scale)
			})
		}}
	}
	db, err := resultsdb.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		e := benchrun.NewEnv(mgr, "storagebenchmark-controller", kubelet, store)
		e.ResultsDB = db
		return (&storagebenchmark.Reconciler{Env: e, Image: "registry.example/fio:test"}).SetupWithManager(mgr)
	}, kubelet.run)
	spec := strings.Replace(smallFio, "repetitions: 2", "repetitions: 1", 1) + `expectations:
- {test: randread-4k-qd4, metric: read_iops, relative: {history: {runs: 10}, tolerance: "5%"}}
`
	run := func(i int, s float64) metav1.Condition {
		mu.Lock()
		scale = s
		mu.Unlock()
		b := runAgain(t, ns, "nightly", spec)
		c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionRegressed)
		if c == nil {
			t.Fatalf("run %d: no Regressed condition: %+v", i, b.Status.Conditions)
		}
		t.Logf("run %d (IOPS x%.3f): Regressed=%s %s: %s", i, s, c.Status, c.Reason, c.Message)
		// The expectation against the figure's own history: none at first,
		// within 5 % of the earlier runs' median, then 20 % under it.
		e := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionMeetsExpectations)
		want := map[bool]metav1.ConditionStatus{true: metav1.ConditionTrue, false: metav1.ConditionFalse}[s > 0.9]
		if i == 1 {
			want = metav1.ConditionUnknown
		}
		if e == nil || e.Status != want {
			t.Errorf("run %d: MeetsExpectations %+v, want %s", i, e, want)
		} else {
			t.Logf("run %d: MeetsExpectations=%s %s: %s", i, e.Status, e.Reason, e.Message)
		}
		if i == 6 && !strings.Contains(e.Message, "(the median of its last 5 run(s): ") {
			t.Errorf("run 6's expectation does not name its baseline: %s", e.Message)
		}
		return *c
	}
	for i, s := range []float64{1, 1.003, 0.998, 1.002, 0.997} {
		c := run(i+1, s)
		want := benchv1.ReasonSteady
		if i < 4 {
			want = benchv1.ReasonTooFewRuns
		}
		if c.Reason != want {
			t.Errorf("run %d: %s, want %s", i+1, c.Reason, want)
		}
	}
	// One slower run is a one-off; three that agree are a regression.
	for i, s := range []float64{0.8, 0.802} {
		if c := run(6+i, s); c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonOutlier {
			t.Errorf("slower run %d of 3: %s %s, want False Outlier", i+1, c.Status, c.Reason)
		}
	}
	c := run(8, 0.799)
	if c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonRegressed {
		t.Fatalf("the third slower run: %+v", c)
	}
	for _, want := range []string{"_iops: Regressed since run nightly ", "(step, 3 run(s) against 5, p = "} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("the condition's message lacks %q", want)
		}
	}
	waitEvents(t, ns, "nightly", "Warning/Regressed")
}

// runAgain runs a StorageBenchmark under a name used before (one series in
// the results database) until it succeeds, then deletes it and, as envtest
// has no garbage collector, its Job and pod, so that the next run's Job can
// take the same name. It returns the benchmark as it ended.
func runAgain(t *testing.T, ns, name, spec string) *benchv1.StorageBenchmark {
	t.Helper()
	env := &storageEnv{ns: ns}
	b := waitFinished(t, env.createBenchmark(t, name, spec), 60*time.Second)
	if !meta.IsStatusConditionTrue(b.Status.Conditions, benchv1.ConditionSucceeded) {
		t.Fatalf("%s did not succeed: %+v", name, b.Status.Conditions)
	}
	if err := k8sClient.Delete(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 30*time.Second, "the benchmark gone", func() (bool, string) {
		err := k8sClient.Get(context.Background(), clientKey(b), &benchv1.StorageBenchmark{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	for _, o := range []client.Object{&batchv1.Job{}, &corev1.Pod{}} {
		if err := k8sClient.DeleteAllOf(context.Background(), o, client.InNamespace(ns), client.GracePeriodSeconds(0),
			client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
			t.Fatal(err)
		}
	}
	util.WaitFor(t, 30*time.Second, "the run's Job gone", func() (bool, string) {
		var jobs batchv1.JobList
		err := k8sClient.List(context.Background(), &jobs, client.InNamespace(ns))
		return err == nil && len(jobs.Items) == 0, fmt.Sprintf("%d jobs, %v", len(jobs.Items), err)
	})
	return b
}

// The results database down (a real PostgreSQL server, stopped): the run
// still succeeds with its files stored, its Regressed condition says the
// history could not be read, and an event says it is not indexed yet. The
// server back, a backfill indexes it, once.
func TestResultsDatabaseDownLosesNothing(t *testing.T) {
	requireTool(t, "fio")
	createNode(t, "node-a", "n2-standard-4")
	pg, err := util.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Stop)
	ctx := context.Background()
	db, err := resultsdb.Open(ctx, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ns := testNamespace(t, "sb-")
	kubelet := newFakeKubelet(t, ns)
	store := startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		e := benchrun.NewEnv(mgr, "storagebenchmark-controller", kubelet, store)
		e.ResultsDB = db
		return (&storagebenchmark.Reconciler{Env: e, Image: "registry.example/fio:test"}).SetupWithManager(mgr)
	}, kubelet.run)
	spec := strings.Replace(smallFio, "repetitions: 2", "repetitions: 1", 1)

	first := runAgain(t, ns, "nightly", spec)
	if has, err := db.Has(ctx, string(first.UID)); err != nil || !has {
		t.Fatalf("the first run is not indexed: %v", err)
	}
	pg.Halt()
	second := runAgain(t, ns, "nightly", spec)
	c := meta.FindStatusCondition(second.Status.Conditions, benchv1.ConditionRegressed)
	if c == nil || c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonHistoryUnavailable {
		t.Fatalf("with the database down: %+v", c)
	}
	t.Logf("with the database down: Regressed=%s %s: %s", c.Status, c.Reason, c.Message)
	waitEvents(t, ns, "nightly", "Warning/IndexFailed")
	prefix, _ := artifacts.Location{Namespace: ns, Kind: "StorageBenchmark", Name: "nightly", UID: string(second.UID)}.Prefix()
	for _, f := range []string{"summary.json", "samples.ndjson", "outcome.json"} {
		if ok, err := store.Exists(ctx, prefix+f); err != nil || !ok {
			t.Errorf("%s of the run made while the database was down: %v, %v", f, ok, err)
		}
	}

	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	res, err := resultsdb.Backfill(ctx, db, store)
	if err != nil || res.Indexed != 1 || res.Known != 1 || res.Failed != 0 {
		t.Fatalf("the backfill once the database is back: %+v, %v; want the second run indexed", res, err)
	}
	if res, err := resultsdb.Backfill(ctx, db, store); err != nil || res.Indexed != 0 || res.Known != 2 {
		t.Errorf("a second backfill: %+v, %v; want nothing indexed twice", res, err)
	}
	hs, err := db.History(ctx, resultsdb.Query{Metric: "read_iops", Namespace: ns})
	if err != nil || len(hs) != 1 || len(hs[0].Points) != 2 || hs[0].Points[1].RunUID != string(second.UID) {
		t.Errorf("the history after the outage: %+v, %v", hs, err)
	}
}
