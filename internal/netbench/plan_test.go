package netbench

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/topology"
)

// twoSockets has 2 packages of 2 chiplets of 2 CPUs: chiplet n holds CPUs
// 2n and 2n+1.
func twoSockets() *topology.Topology {
	t := &topology.Topology{ChipletsFrom: "l3"}
	for id := range 8 {
		t.CPUs = append(t.CPUs, topology.CPU{ID: id, Package: id / 4, Chiplet: id / 2, L3: id / 2})
	}
	return t
}

func names(steps []Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Test+" "+s.Pair.Name()+" "+s.Pair.Scope)
	}
	return out
}

func TestPlanGeneratedPairs(t *testing.T) {
	in := Input{
		Nodes:    2,
		Pairs:    benchv1.NetworkPairs{Scopes: []benchv1.NetworkScope{benchv1.ScopeIntraSocket, benchv1.ScopeInterSocket, benchv1.ScopeInterNode}},
		Fabtests: &benchv1.FabtestsSettings{Tests: []string{"fi_msg_bw"}},
	}
	steps, err := Plan(in, twoSockets())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		// Node 0, then node 1: chiplet 1 is the other chiplet of socket 0,
		// chiplets 2 and 3 are socket 1's.
		"fi_msg_bw n0:c0 -> n0:c2 intraSocket",
		"fi_msg_bw n0:c0 -> n0:c4 interSocket",
		"fi_msg_bw n0:c0 -> n0:c6 interSocket",
		"fi_msg_bw n1:c0 -> n1:c2 intraSocket",
		"fi_msg_bw n1:c0 -> n1:c4 interSocket",
		"fi_msg_bw n1:c0 -> n1:c6 interSocket",
		// Two nodes: one direction, to every chiplet of the other node.
		"fi_msg_bw n0:c0 -> n1:c0 interNode",
		"fi_msg_bw n0:c0 -> n1:c2 interNode",
		"fi_msg_bw n0:c0 -> n1:c4 interNode",
		"fi_msg_bw n0:c0 -> n1:c6 interNode",
	}
	if d := cmp.Diff(want, names(steps)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	for i, s := range steps {
		if s.Index != i || s.Port() != ControlPort+2+2*i {
			t.Errorf("step %d: index %d port %d", i, s.Index, s.Port())
		}
	}
}

func TestPlanRingAndTests(t *testing.T) {
	in := Input{
		Nodes:    3,
		Pairs:    benchv1.NetworkPairs{From: &benchv1.ChipletRef{Chiplet: 3}, Scopes: []benchv1.NetworkScope{benchv1.ScopeInterNode}},
		Fabtests: &benchv1.FabtestsSettings{Tests: []string{"fi_msg_bw", "fi_msg_pingpong"}},
	}
	topo := twoSockets()
	topo.CPUs = topo.CPUs[:4] // one socket, chiplets 0 and 1
	if _, err := Plan(in, topo); err == nil || !strings.Contains(err.Error(), "chiplet 3 does not exist: this machine has chiplets 0 to 1") {
		t.Errorf("got %v", err)
	}
	in.Pairs.From.Chiplet = 1
	steps, err := Plan(in, topo)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"fi_msg_bw n0:c2 -> n1:c0 interNode", "fi_msg_bw n0:c2 -> n1:c2 interNode",
		"fi_msg_bw n1:c2 -> n2:c0 interNode", "fi_msg_bw n1:c2 -> n2:c2 interNode",
		"fi_msg_bw n2:c2 -> n0:c0 interNode", "fi_msg_bw n2:c2 -> n0:c2 interNode",
		"fi_msg_pingpong n0:c2 -> n1:c0 interNode", "fi_msg_pingpong n0:c2 -> n1:c2 interNode",
		"fi_msg_pingpong n1:c2 -> n2:c0 interNode", "fi_msg_pingpong n1:c2 -> n2:c2 interNode",
		"fi_msg_pingpong n2:c2 -> n0:c0 interNode", "fi_msg_pingpong n2:c2 -> n0:c2 interNode",
	}
	if d := cmp.Diff(want, names(steps)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
}

func TestPlanExplicitPairs(t *testing.T) {
	in := Input{
		Nodes: 2,
		Pairs: benchv1.NetworkPairs{Explicit: []benchv1.ExplicitPair{
			{Server: benchv1.PairEnd{CPU: 0}, Client: benchv1.PairEnd{CPU: 3}},
			{Server: benchv1.PairEnd{CPU: 0}, Client: benchv1.PairEnd{CPU: 5}},
			{Server: benchv1.PairEnd{CPU: 1}, Client: benchv1.PairEnd{Node: 1, CPU: 1}},
		}},
		IPerf3: &benchv1.IPerf3Settings{},
	}
	steps, err := Plan(in, twoSockets())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"iperf3 n0:c0 -> n0:c3 intraSocket", "iperf3 n0:c0 -> n0:c5 interSocket", "iperf3 n0:c1 -> n1:c1 interNode"}
	if d := cmp.Diff(want, names(steps)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if c := steps[1].Pair.Client; c.Chiplet != 2 || c.Package != 1 {
		t.Errorf("CPU 5 placed at %+v", c)
	}
	in.Pairs.Explicit[0].Client.CPU = 9
	if _, err := Plan(in, twoSockets()); err == nil || !strings.Contains(err.Error(), "the client's CPU 9 is not online here: CPUs 0-7 are") {
		t.Errorf("got %v", err)
	}
}

func TestPlanTooManySteps(t *testing.T) {
	in := Input{Nodes: 1, IPerf3: &benchv1.IPerf3Settings{}}
	for range MaxSteps + 1 {
		in.Pairs.Explicit = append(in.Pairs.Explicit, benchv1.ExplicitPair{Client: benchv1.PairEnd{CPU: 1}})
	}
	if _, err := Plan(in, twoSockets()); err == nil || !strings.Contains(err.Error(), "is more than 2048") {
		t.Errorf("got %v", err)
	}
}

func TestDigestDiffersWithTopology(t *testing.T) {
	in := Input{Nodes: 2, Pairs: benchv1.NetworkPairs{Scopes: []benchv1.NetworkScope{benchv1.ScopeInterNode}}, IPerf3: &benchv1.IPerf3Settings{}}
	a, _ := Plan(in, twoSockets())
	small := twoSockets()
	small.CPUs = small.CPUs[:4]
	b, _ := Plan(in, small)
	if Digest(a) == Digest(b) {
		t.Error("plans of different topologies have one digest")
	}
}

func TestArgv(t *testing.T) {
	steps, _ := Plan(fabtestsInput("sockets", "fi_rma_bw"), twoSockets())
	in := fabtestsInput("sockets", "fi_rma_bw")
	got := strings.Join(ServerArgv(in, steps[0], "10.0.0.1"), " ")
	if want := "taskset -c 0 fi_rma_bw -p sockets -o write -S 4096 -I 50 -w 5 -E=29103 -s 10.0.0.1 -B 29102"; got != want {
		t.Errorf("server argv\n got %s\nwant %s", got, want)
	}
	got = strings.Join(ClientArgv(in, steps[0], "10.0.0.2", "10.0.0.1"), " ")
	if want := "taskset -c 1 fi_rma_bw -p sockets -o write -S 4096 -I 50 -w 5 -E=29103 -s 10.0.0.2 -P 29102 10.0.0.1"; got != want {
		t.Errorf("client argv\n got %s\nwant %s", got, want)
	}
	// msg endpoints connect without the out-of-band socket: see outOfBand.
	msg := fabtestsInput("tcp", "fi_msg_pingpong")
	msgSteps, _ := Plan(msg, twoSockets())
	got = strings.Join(ServerArgv(msg, msgSteps[0], "10.0.0.1"), " ") + " | " + strings.Join(ClientArgv(msg, msgSteps[0], "10.0.0.2", "10.0.0.1"), " ")
	if want := "taskset -c 0 fi_msg_pingpong -p tcp -S 4096 -I 50 -w 5 -s 10.0.0.1 -B 29102 | taskset -c 1 fi_msg_pingpong -p tcp -S 4096 -I 50 -w 5 -s 10.0.0.2 -P 29102 10.0.0.1"; got != want {
		t.Errorf("msg endpoint argv\n got %s\nwant %s", got, want)
	}
	ip := Input{Nodes: 1, Pairs: in.Pairs, IPerf3: &benchv1.IPerf3Settings{Protocol: "UDP", Bitrate: "1G", Seconds: 5, Streams: 4, Reverse: true, OmitSeconds: 1}}
	got = strings.Join(ClientArgv(ip, steps[0], "", "10.0.0.1"), " ")
	if want := "taskset -c 1 iperf3 -c 10.0.0.1 -p 29102 -J -t 5 -P 4 -O 1 -R -u -b 1G"; got != want {
		t.Errorf("iperf3 client argv\n got %s\nwant %s", got, want)
	}
}
