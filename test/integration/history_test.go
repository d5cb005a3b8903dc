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
// tell, and a sixth at 80 % of that IOPS is Regressed, the condition and
// the event naming the figure and the runs it was compared with. The real
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
	env := &storageEnv{ns: ns, kubelet: kubelet}
	spec := strings.Replace(smallFio, "repetitions: 2", "repetitions: 1", 1)
	run := func(i int, s float64) metav1.Condition {
		mu.Lock()
		scale = s
		mu.Unlock()
		b := waitFinished(t, env.createBenchmark(t, "nightly", spec), 60*time.Second)
		c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionRegressed)
		if !meta.IsStatusConditionTrue(b.Status.Conditions, benchv1.ConditionSucceeded) || c == nil {
			t.Fatalf("run %d: %+v", i, b.Status.Conditions)
		}
		t.Logf("run %d (IOPS x%.3f): Regressed=%s %s: %s", i, s, c.Status, c.Reason, c.Message)
		// envtest has no garbage collector: the Job and pod go by hand,
		// so that the next run's Job can take the same name.
		if err := k8sClient.Delete(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		util.WaitFor(t, 30*time.Second, "the benchmark gone", func() (bool, string) {
			err := k8sClient.Get(context.Background(), clientKey(b), b)
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
	c := run(6, 0.8)
	if c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonRegressed {
		t.Fatalf("the slower run: %+v", c)
	}
	for _, want := range []string{"randread-4k-qd4 read_iops Regressed -20.0% (step", "against 5 runs from nightly ", "to nightly "} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("the condition's message lacks %q", want)
		}
	}
	waitEvents(t, ns, "nightly", "Warning/Regressed")
}
