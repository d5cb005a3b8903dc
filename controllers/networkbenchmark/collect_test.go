package networkbenchmark

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/topology"
	"github.com/benchwright/benchwright/test/fixtures"
	"github.com/benchwright/benchwright/test/wrappers"
)

// podLogs serves each pod's log and counts the reads.
type podLogs struct {
	logs  map[string][]byte
	reads int
}

func (p *podLogs) ReadLog(_ context.Context, _, pod, _ string) ([]byte, error) {
	p.reads++
	return p.logs[pod], nil
}

// collectEnv is a reconciler over a fake client and a file:// store, a
// benchmark of fi_msg_bw between slots 0 and 1, and the two slots' pods.
func collectEnv(t testing.TB, logs *podLogs) (*Reconciler, *benchv1.NetworkBenchmark, []*corev1.Pod) {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := benchv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	var pods []*corev1.Pod
	var objs []runtime.Object
	for i, node := range []string{"node-a", "node-b"} {
		objs = append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}})
		pods = append(pods, wrappers.MakePod("net-r0-n"+strconv.Itoa(i), "ns").Label(children.SlotLabel, strconv.Itoa(i)).NodeName(node).Obj())
	}
	store, err := artifacts.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := wrappers.MakeNetworkBenchmark("net", "ns").UID("u1").Nodes(2).Repetitions(1).ChipletPairs(0, benchv1.ScopeInterNode).
		Fabtests(benchv1.FabtestsSettings{Tests: []string{"fi_msg_bw"}}).Obj()
	r := &Reconciler{Env: benchrun.Env{
		Client: fake.NewClientBuilder().WithScheme(s).WithRuntimeObjects(objs...).Build(),
		Scheme: s, Recorder: record.NewFakeRecorder(100), Logs: logs, Store: store,
	}}
	return r, b, pods
}

// finishedDriver drives b as if Observe had found pods finished.
func finishedDriver(r *Reconciler, b *benchv1.NetworkBenchmark, pods []*corev1.Pod) *driver {
	return &driver{r: r, b: b, jobs: &children.SlotJobs{},
		attempt: children.SlotAttempt{Observation: children.Observation{Finished: pods}}}
}

// reportLog is a runner's log holding its report.
func reportLog(t *testing.T, r *netbench.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// oneCPU is a node's topology in the tests: one CPU, one chiplet.
var oneCPU = &topology.Topology{CPUs: []topology.CPU{{ID: 0, Siblings: []int{0}}}, ChipletsFrom: "package"}

// plannedReports are the two slots' reports of b's plan on oneCPU: its one
// step, fi_msg_bw from slot 0 (the server) to slot 1, client output out.
func plannedReports(t *testing.T, b *benchv1.NetworkBenchmark, out string) (server, client *netbench.Report) {
	t.Helper()
	steps, err := netbench.Plan(netbench.InputOf(&b.Spec), oneCPU)
	if err != nil || len(steps) != 1 {
		t.Fatalf("plan %+v, %v", steps, err)
	}
	digest := netbench.Digest(steps)
	server = &netbench.Report{Slot: 0, Topology: oneCPU, Plan: digest, Steps: []netbench.StepReport{{Step: steps[0], Role: netbench.RoleServer}}}
	client = &netbench.Report{Slot: 1, Topology: oneCPU, Plan: digest, Steps: []netbench.StepReport{{Step: steps[0], Role: netbench.RoleClient, Output: out}}}
	return server, client
}

// Each pod's report is parsed as it is read, with the other slots' node
// names from their pods.
func TestCollectOnePodAtATime(t *testing.T) {
	out, err := os.ReadFile("../../internal/fabtests/testdata/real/fi_msg_bw_tcp_1.17_client.txt")
	if err != nil {
		t.Fatal(err)
	}
	logs := &podLogs{logs: map[string][]byte{}}
	r, b, pods := collectEnv(t, logs)
	server, client := plannedReports(t, b, string(out))
	logs.logs[pods[0].Name] = reportLog(t, server)
	logs.logs[pods[1].Name] = reportLog(t, client)
	if _, err := r.Collect(context.Background(), finishedDriver(r, b, pods), children.Attempt{}); err != nil {
		t.Fatal(err)
	}
	data, err := r.Store.Get(context.Background(), "ns/NetworkBenchmark/net/u1/"+results.SamplesNDJSONFile)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadNDJSON(bytes.NewReader(data))
	if err != nil || len(samples) == 0 {
		t.Fatalf("%d samples, %v", len(samples), err)
	}
	for _, s := range samples {
		if s.Test != "fi_msg_bw" || s.Labels[netbench.LabelServerNode] != "node-a" || s.Labels[netbench.LabelClientNode] != "node-b" {
			t.Fatalf("sample %s, server %q client %q", s.Test, s.Labels[netbench.LabelServerNode], s.Labels[netbench.LabelClientNode])
		}
	}
	if !isTrue(b, benchv1.ConditionSucceeded) {
		t.Errorf("not Succeeded: %+v", b.Status.Conditions)
	}
	if st := b.Status.Topology; len(st) != 2 || st[0].ChipletsFrom != "package" {
		t.Errorf("status topology %+v", st)
	}
}

// A report is the pod's word: what its strings may put in the status (a
// scope, a test, chipletsFrom) must be what the manager's own plan says, or
// the API server refuses the status write, again on every retry, and the
// benchmark never ends. Such a report is UnparsableOutput.
func TestCollectHoldsTheReportToThePlan(t *testing.T) {
	long := strings.Repeat("s", 40) // over status.pairs[].scope's 32
	tests := []struct {
		name   string
		change func(server, client *netbench.Report)
		want   string
	}{
		{"a scope of its own", func(_, c *netbench.Report) { c.Steps[0].Pair.Scope = long }, "is not step 0 of the plan"},
		{"a test the spec does not run", func(_, c *netbench.Report) {
			extra := c.Steps[0]
			extra.Index, extra.Test = 1, "fi_unasked"
			c.Steps = append(c.Steps, extra)
		}, "is not step 1 of the plan"},
		{"chiplets by its own word", func(_, c *netbench.Report) {
			t := *c.Topology
			t.ChipletsFrom = long
			c.Topology = &t
		}, "groups chiplets by"},
		{"another plan", func(_, c *netbench.Report) { c.Plan = "0123456789ab" }, "is not"},
		{"another slot", func(_, c *netbench.Report) { c.Slot = 0 }, "the pod runs slot 1"},
		{"a step twice", func(_, c *netbench.Report) { c.Steps = append(c.Steps, c.Steps[0]) }, "out of order"},
		{"another role", func(_, c *netbench.Report) { c.Steps[0].Role = netbench.RoleServer }, "not node slot 1's"},
		{"no topology", func(_, c *netbench.Report) { c.Topology = nil }, "no topology"},
	}
	out, err := os.ReadFile("../../internal/fabtests/testdata/real/fi_msg_bw_tcp_1.17_client.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs := &podLogs{logs: map[string][]byte{}}
			r, b, pods := collectEnv(t, logs)
			server, client := plannedReports(t, b, string(out))
			tc.change(server, client)
			logs.logs[pods[0].Name] = reportLog(t, server)
			logs.logs[pods[1].Name] = reportLog(t, client)
			_, err := r.Collect(context.Background(), finishedDriver(r, b, pods), children.Attempt{})
			var oe *outcome.Outcome
			if !errors.As(err, &oe) || oe.Reason != benchv1.ReasonUnparsableOutput || !strings.Contains(oe.Message, tc.want) {
				t.Fatalf("error %v, want UnparsableOutput saying %q; status pairs %+v", err, tc.want, b.Status.Pairs)
			}
		})
	}
}

// A report over the bytes cap fails OutputTooLarge, naming the pod and the cap.
func TestCollectLogOverTheCap(t *testing.T) {
	logs := &podLogs{logs: map[string][]byte{}}
	r, b, pods := collectEnv(t, logs)
	logs.logs[pods[0].Name] = append(bytes.Repeat([]byte("x"), podlogs.MaxLogBytes), "\nthe end\n"...)
	_, err := r.Collect(context.Background(), finishedDriver(r, b, pods), children.Attempt{})
	var oe *outcome.Outcome
	if !errors.As(err, &oe) || oe.Reason != benchv1.ReasonOutputTooLarge {
		t.Fatalf("error %v, want OutputTooLarge", err)
	}
	for _, q := range []string{"repetition 1/1, pod net-r0-n0 on node node-a: the log of container", "over the 16 MiB", "the end"} {
		if !strings.Contains(oe.Message, q) {
			t.Errorf("message lacks %q: %s", q, oe.Message)
		}
	}
	if logs.reads != 1 {
		t.Errorf("%d logs read after the one over the cap", logs.reads)
	}
}

func isTrue(b *benchv1.NetworkBenchmark, typ string) bool {
	for _, c := range b.Status.Conditions {
		if c.Type == typ {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// A runner that prints 16 MiB and fails costs the manager the end of its
// log where its report is (netbench.MaxFailedReport), not the log and its
// copies: the log is streamed to the store.
func TestToolFailureHoldsABoundedPartOfTheLog(t *testing.T) {
	r, b, pods := collectEnv(t, &podLogs{})
	server, _ := plannedReports(t, b, "")
	server.Steps[0].Error, server.Steps[0].ExitCode = "the server exited with code 1: fi_getinfo: -61", 1
	server.Error = "step 0 failed"
	log := fixtures.HugeLog{
		Line: []byte("benchwright netbench: a progress line printed far too often\n"),
		End:  reportLog(t, server),
		Size: podlogs.MaxLogBytes,
	}
	r.Logs = log
	d := &driver{r: r, b: b, attempt: children.SlotAttempt{Observation: children.Observation{Failed: pods[0]}}}
	var err error
	n := fixtures.Allocated(t, func() { err = d.Failure(context.Background(), children.Attempt{}) })
	var oe *outcome.Outcome
	if !errors.As(err, &oe) || oe.Reason != benchv1.ReasonToolFailed || !strings.Contains(oe.Message, "fi_getinfo: -61") {
		t.Fatalf("error %v, want ToolFailed quoting the failed step", err)
	}
	key, _ := artifacts.Location{Namespace: "ns", Kind: kind, Name: "net", UID: "u1"}.RawLog(0, pods[0].Name)
	if stored, err := r.Store.Get(context.Background(), key); err != nil || len(stored) != podlogs.MaxLogBytes {
		t.Fatalf("stored log of %d bytes, %v; want the whole log", len(stored), err)
	}
	t.Logf("Failure of a %d MiB log allocated %d KiB", podlogs.MaxLogBytes>>20, n>>10)
	// Twice MaxFailedReport for the log's end, and the store's 1 MiB buffer.
	if limit := uint64(2*netbench.MaxFailedReport + 2<<20); n > limit {
		t.Errorf("Failure of a %d MiB log allocated %d KiB, want under %d KiB", podlogs.MaxLogBytes>>20, n>>10, limit>>10)
	}
}

// BenchmarkToolFailureOf16MiBLog is the failure path's cost for a 16 MiB
// log (B/op: what one failing reconcile allocates).
func BenchmarkToolFailureOf16MiBLog(bm *testing.B) {
	r, b, pods := collectEnv(bm, &podLogs{})
	r.Logs = fixtures.HugeLog{Line: []byte("progress\n"), End: []byte("the end\n"), Size: podlogs.MaxLogBytes}
	d := &driver{r: r, b: b, attempt: children.SlotAttempt{Observation: children.Observation{Failed: pods[0]}}}
	bm.ReportAllocs()
	for bm.Loop() {
		if err := d.Failure(context.Background(), children.Attempt{}); err == nil {
			bm.Fatal("no failure")
		}
	}
}
