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
func collectEnv(t *testing.T, logs *podLogs) (*Reconciler, *benchv1.NetworkBenchmark, []*corev1.Pod) {
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
	b := wrappers.MakeNetworkBenchmark("net", "ns").UID("u1").Nodes(2).Repetitions(1).
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

// Each pod's report is parsed as it is read, with the other slots' node
// names from their pods; steps of tests the spec does not run are ignored.
func TestCollectOnePodAtATime(t *testing.T) {
	out, err := os.ReadFile("../../internal/fabtests/testdata/real/fi_msg_bw_tcp_1.17_client.txt")
	if err != nil {
		t.Fatal(err)
	}
	pair := netbench.Pair{Scope: "interNode", Server: netbench.End{Node: 1}, Client: netbench.End{Node: 0}}
	logs := &podLogs{logs: map[string][]byte{}}
	r, b, pods := collectEnv(t, logs)
	logs.logs[pods[0].Name] = reportLog(t, &netbench.Report{Slot: 0, Plan: "p", Steps: []netbench.StepReport{
		{Step: netbench.Step{Test: "fi_msg_bw", Pair: pair}, Role: netbench.RoleClient, Output: string(out)},
		{Step: netbench.Step{Test: "fi_unasked", Pair: pair}, Role: netbench.RoleClient, Output: "garbage"},
	}})
	logs.logs[pods[1].Name] = reportLog(t, &netbench.Report{Slot: 1, Plan: "p", Steps: []netbench.StepReport{
		{Step: netbench.Step{Test: "fi_msg_bw", Pair: pair}, Role: netbench.RoleServer},
	}})
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
		if s.Test != "fi_msg_bw" || s.Labels[netbench.LabelServerNode] != "node-b" || s.Labels[netbench.LabelClientNode] != "node-a" {
			t.Fatalf("sample %s, server %q client %q", s.Test, s.Labels[netbench.LabelServerNode], s.Labels[netbench.LabelClientNode])
		}
	}
	if !isTrue(b, benchv1.ConditionSucceeded) {
		t.Errorf("not Succeeded: %+v", b.Status.Conditions)
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
