package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
)

// countedLogs counts the logs a manager reads.
type countedLogs struct {
	podlogs.LogReader
	reads atomic.Int32
}

func (c *countedLogs) ReadLog(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	c.reads.Add(1)
	return c.LogReader.ReadLog(ctx, namespace, pod, container)
}

// startStorageManager starts a StorageBenchmark controller on ns reading logs
// through logs: a manager process of its own.
func startStorageManager(t *testing.T, ns string, logs podlogs.LogReader, standIn func(context.Context)) *artifacts.Store {
	return startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		return (&storagebenchmark.Reconciler{
			Env: benchrun.NewEnv(mgr, "storagebenchmark-controller", logs, store), Image: "registry.example/fio:test",
		}).SetupWithManager(mgr)
	}, standIn)
}

// A fio log over the 16 MiB the manager reads fails OutputTooLarge, naming
// the cap and quoting the log's end; neither a later reconcile nor a manager
// started afresh (a restart) reads it again.
func TestStorageBenchmarkLogOverTheCap(t *testing.T) {
	requireTool(t, "fio")
	ns := testNamespace(t, "sb-")
	kubelet := newFakeKubelet(t, ns)
	kubelet.hook = func(*batchv1.Job) podFate {
		return podFate{mangle: func(_ string, out []byte) []byte {
			spam := bytes.Repeat([]byte("fio: verbose progress line\n"), podlogs.MaxLogBytes/27+1)
			return append(append(spam, out...), "the very end of a huge log\n"...)
		}}
	}
	first := &countedLogs{LogReader: kubelet}
	startStorageManager(t, ns, first, kubelet.run)
	env := &storageEnv{ns: ns, kubelet: kubelet}
	b := waitFinished(t, env.createBenchmark(t, "huge", strings.Replace(smallFio, "repetitions: 2", "repetitions: 1", 1)), 60*time.Second)
	wantFailed(t, b, benchv1.ReasonOutputTooLarge, "repetition 1/1, pod huge-r0-", "on node node-a: the log of container fio is",
		"over the 16 MiB the manager reads of one log (MaxLogBytes", "last lines of the output:", "the very end of a huge log")
	failed := condition(t, b, benchv1.ConditionFailed)

	// A reconcile of the failed benchmark, by this manager and by a new one.
	second := &countedLogs{LogReader: kubelet}
	startStorageManager(t, ns, second, func(context.Context) {})
	reads := first.reads.Load()
	b.Annotations = map[string]string{"example.com/poke": "1"}
	if err := k8sClient.Update(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if n, m := first.reads.Load()-reads, second.reads.Load(); n != 0 || m != 0 {
		t.Errorf("a failed benchmark's logs were read again: %d time(s) by the first manager, %d by the restarted one", n, m)
	}
	b = waitFinished(t, b, time.Second)
	if c := condition(t, b, benchv1.ConditionFailed); c.Message != failed.Message || !c.LastTransitionTime.Equal(&failed.LastTransitionTime) {
		t.Errorf("the Failed condition changed: %+v", c)
	}
}

// fio's JSON listing 10 000 jobs the spec did not ask for: only the spec's
// jobs are kept, in the status and in the stored samples.
func TestStorageBenchmarkReportOfUnaskedJobs(t *testing.T) {
	requireTool(t, "fio")
	env := newStorageEnv(t, func(_ context.Context, k *fakeKubelet) {
		k.hook = func(*batchv1.Job) podFate {
			return podFate{mangle: func(c string, out []byte) []byte {
				i := bytes.Index(out, []byte(`"jobs" : [`))
				if c != "fio" || i < 0 {
					return out
				}
				var unasked bytes.Buffer
				for n := range 10_000 {
					fmt.Fprintf(&unasked, `{"jobname": "unasked-%d", "groupid": 0, "error": 0, "read": {"io_bytes": 4096, "bw": 4, "iops": 1, "runtime": 1000, "total_ios": 1}},`, n)
				}
				at := i + len(`"jobs" : [`)
				return append(append(append([]byte{}, out[:at]...), unasked.Bytes()...), out[at:]...)
			}}
		}
	})
	b := waitFinished(t, env.createBenchmark(t, "unasked", strings.Replace(smallFio, "repetitions: 2", "repetitions: 1", 1)), 60*time.Second)
	if !meta.IsStatusConditionTrue(b.Status.Conditions, benchv1.ConditionSucceeded) {
		t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
	}
	spec := map[string]bool{"randread-4k-qd4": true, "write-1m": true}
	if len(b.Status.Results) != len(spec) || !spec[b.Status.Results[0].Test] || !spec[b.Status.Results[1].Test] {
		t.Errorf("results %+v, want the spec's jobs only", b.Status.Results)
	}
	prefix, _ := artifacts.Location{Namespace: b.Namespace, Kind: "StorageBenchmark", Name: b.Name, UID: string(b.UID)}.Prefix()
	data, err := env.store.Get(context.Background(), prefix+results.SamplesNDJSONFile)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadNDJSON(bytes.NewReader(data))
	if err != nil || len(samples) == 0 {
		t.Fatalf("%d samples, %v", len(samples), err)
	}
	for _, s := range samples {
		if !spec[s.Test] {
			t.Fatalf("a sample of %s was stored", s.Test)
		}
	}
	if raw := rawLogs(t, env.store, b); len(raw) != 1 || !bytes.Contains(raw[0], []byte("unasked-9999")) {
		t.Errorf("the raw log is not stored whole")
	}
}

// A launcher log over the cap fails OutputTooLarge with its end.
func TestMPIBenchmarkLogOverTheCap(t *testing.T) {
	huge := append(bytes.Repeat([]byte("[node-a:00042] mca: verbose\n"), podlogs.MaxLogBytes/28+1), "the launcher's last line\n"...)
	env := newMPIEnv(t, func(*mpiv2.MPIJob) mpiFate { return mpiFate{log: huge} })
	b := waitFinished(t, env.create(t, "osu", `
nodeSelector: {kubernetes.io/os: linux}
suite: osu
tests: [osu_latency]
layout: {nodes: 2, ranksPerNode: 1}
mpi: {implementation: OpenMPI}
`), 30*time.Second)
	c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionFailed)
	if c == nil || c.Reason != benchv1.ReasonOutputTooLarge {
		t.Fatalf("Failed condition %+v, want OutputTooLarge", c)
	}
	for _, q := range []string{"repetition 1/1, launcher osu-", "container launcher is over the 16 MiB", "MaxLogBytes", "the launcher's last line"} {
		if !strings.Contains(c.Message, q) {
			t.Errorf("message lacks %q:\n%s", q, c.Message)
		}
	}
}
