package netbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/topology"
	"github.com/benchwright/benchwright/test/util"
)

// fabtestsInput runs test between CPU 0 and 1 of one node, small and quick.
func fabtestsInput(provider string, tests ...string) Input {
	return Input{
		Nodes: 1,
		Pairs: benchv1.NetworkPairs{Explicit: []benchv1.ExplicitPair{{Server: benchv1.PairEnd{CPU: 0}, Client: benchv1.PairEnd{CPU: 1}}}},
		Fabtests: &benchv1.FabtestsSettings{
			Tests: tests, Provider: provider, Iterations: ptr.To[int32](50), WarmupIterations: ptr.To[int32](5),
			MessageSize: ptr.To[int64](4096),
		},
	}
}

func localTopology(t *testing.T) *topology.Topology {
	t.Helper()
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs to pin a pair")
	}
	topo, err := topology.Read("/sys")
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// wantScope is the scope of the pair CPU 0 -> CPU 1 here.
func wantScope(t *testing.T) string {
	topo := localTopology(t)
	if topo.CPUs[0].Chiplet == topo.CPUs[1].Chiplet {
		return ScopeIntraChiplet
	}
	return "intraSocket"
}

func toolEnv(t *testing.T) []string {
	dir := util.BenchTools(t, "fabtests")
	return []string{"PATH=" + dir + ":" + os.Getenv("PATH")}
}

func runOne(t *testing.T, in Input, env []string) (*Report, []results.Sample, error) {
	t.Helper()
	topo := localTopology(t)
	steps, err := Plan(in, topo)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Input: in, Steps: steps, Node: "here", Topology: topo, Self: loopback, Env: env, StepTimeout: time.Minute}
	rep := r.Run(context.Background())
	samples, err := Samples(in, []*Report{rep})
	return rep, samples, err
}

// TestRunnerFabtestsPinned runs real fabtests server and client pinned to
// CPUs 0 and 1 and reads their bandwidth, for msg and rdm endpoints.
func TestRunnerFabtestsPinned(t *testing.T) {
	env := toolEnv(t)
	for _, tc := range []struct{ provider, test string }{{"tcp", "fi_msg_bw"}, {"sockets", "fi_rdm_tagged_bw"}, {"tcp", "fi_msg_pingpong"}} {
		t.Run(tc.test, func(t *testing.T) {
			rep, samples, err := runOne(t, fabtestsInput(tc.provider, tc.test), env)
			if err != nil {
				t.Fatalf("%v\nreport: %+v", err, rep)
			}
			if len(rep.Steps) != 1 || rep.Steps[0].Role != RoleBoth {
				t.Fatalf("steps %+v, want one step run here", rep.Steps)
			}
			argv := strings.Join(rep.Steps[0].Argv, " ")
			if !strings.HasPrefix(argv, "taskset -c 1 "+tc.test+" -p "+tc.provider) {
				t.Errorf("client argv %q is not pinned to CPU 1", argv)
			}
			var bw int
			for _, s := range samples {
				if s.Metric != "bandwidth" {
					continue
				}
				bw++
				if s.Value <= 0 || s.Labels[LabelPair] != "n0:c0 -> n0:c1" || s.Labels[LabelServerCPU] != "0" || s.Labels[LabelClientCPU] != "1" || s.Labels[LabelScope] != wantScope(t) || s.Labels[results.LabelMsgSize] != "4096" {
					t.Errorf("sample %+v", s)
				}
			}
			if bw != 1 {
				t.Errorf("%d bandwidth samples, want 1 (one size): %+v", bw, samples)
			}
		})
	}
}

// TestRunnerIPerf3 runs real iperf3 between CPUs 0 and 1.
func TestRunnerIPerf3(t *testing.T) {
	if _, err := exec.LookPath("iperf3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("iperf3 is not installed (make test-deps)")
		}
		t.Skip("iperf3 is not installed")
	}
	in := Input{Nodes: 1, Pairs: fabtestsInput("tcp").Pairs, IPerf3: &benchv1.IPerf3Settings{Seconds: 1, Streams: 2}}
	rep, samples, err := runOne(t, in, nil)
	if err != nil {
		t.Fatalf("%v\nreport: %+v", err, rep)
	}
	found := false
	for _, s := range samples {
		if s.Metric == "bandwidth" && s.Value > 0 && s.Labels[LabelPair] == "n0:c0 -> n0:c1" && s.Labels["streams"] == "2" {
			found = true
		}
	}
	if !found {
		t.Errorf("no labelled bandwidth sample: %+v", samples)
	}
}

// TestRunnerToolFailure: a provider that does not exist here fails the step
// with fabtests' own error quoted, and nothing hangs.
func TestRunnerToolFailure(t *testing.T) {
	env := toolEnv(t)
	rep, _, err := runOne(t, fabtestsInput("verbs", "fi_msg_bw"), env)
	var se *StepError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a StepError; report %+v", err, rep)
	}
	if !strings.Contains(se.Error(), "fi_getinfo") {
		t.Errorf("%q does not quote fabtests' error", se.Error())
	}
	if rep.Error == "" {
		t.Error("the report does not say the runner stopped")
	}
}

// TestRunnerCPUOutsideCpuset: a CPU the runner may not use fails at once
// with the cpuset named.
func TestRunnerCPUOutsideCpuset(t *testing.T) {
	in := fabtestsInput("tcp", "fi_msg_bw")
	topo := localTopology(t)
	// A topology that claims a CPU the process cannot have.
	fake := *topo
	fake.CPUs = append(append([]topology.CPU(nil), topo.CPUs...), topology.CPU{ID: 4000, Chiplet: 0})
	in.Pairs.Explicit[0].Client.CPU = 4000
	steps, err := Plan(in, &fake)
	if err != nil {
		t.Fatal(err)
	}
	rep := (&Runner{Input: in, Steps: steps, Topology: &fake, StepTimeout: time.Minute}).Run(context.Background())
	if !strings.Contains(rep.Error, "CPU 4000 of pair n0:c0 -> n0:c4000 is not in this container's cpuset") {
		t.Errorf("error %q", rep.Error)
	}
}

// TestRunnersAcrossNodes runs two runners as two nodes: node 0 serves, node
// 1 waits for its control port to say the server listens, then connects.
func TestRunnersAcrossNodes(t *testing.T) {
	env := toolEnv(t)
	topo := localTopology(t)
	in := fabtestsInput("sockets", "fi_rdm_tagged_bw")
	in.Nodes = 2
	in.Pairs.Explicit = []benchv1.ExplicitPair{
		{Server: benchv1.PairEnd{Node: 0, CPU: 0}, Client: benchv1.PairEnd{Node: 1, CPU: 1}},
		{Server: benchv1.PairEnd{Node: 1, CPU: 1}, Client: benchv1.PairEnd{Node: 0, CPU: 0}},
	}
	steps, err := Plan(in, topo)
	if err != nil {
		t.Fatal(err)
	}
	peers := []string{"127.0.0.1:29190", "localhost:29191"}
	reports := make([]*Report, 2)
	var wg sync.WaitGroup
	for slot := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &Runner{Input: in, Steps: steps, Slot: slot, Node: fmt.Sprintf("node-%d", slot), Topology: topo, Self: loopback,
				Peers: peers, ControlPort: 29190 + slot, Env: env, StepTimeout: time.Minute}
			reports[slot] = r.Run(context.Background())
		}()
		if slot == 0 {
			time.Sleep(300 * time.Millisecond) // the client side starts first in a real cluster too, or later: either works
		}
	}
	wg.Wait()
	samples, err := Samples(in, reports)
	if err != nil {
		t.Fatalf("%v\nreports %+v %+v", err, reports[0], reports[1])
	}
	pairs := map[string]string{}
	for _, s := range samples {
		if s.Metric == "bandwidth" {
			pairs[s.Labels[LabelPair]] = s.Labels[LabelScope] + " " + s.Labels[LabelServerNode] + "->" + s.Labels[LabelClientNode]
		}
	}
	want := map[string]string{"n0:c0 -> n1:c1": "interNode node-0->node-1", "n1:c1 -> n0:c0": "interNode node-1->node-0"}
	if fmt.Sprint(pairs) != fmt.Sprint(want) {
		t.Errorf("pairs %v, want %v", pairs, want)
	}
}
