// Package netbench runs a NetworkBenchmark's pairs: it plans the steps (one
// test between one server CPU and one client CPU) from the spec and the
// node's topology, runs a node's share of them pinned with taskset, and
// turns the steps' output into labelled samples. The same code runs in the
// benchmark's pods (`benchwright netbench`) and in a local run.
package netbench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/topology"
)

// Ports: every node's runner answers on ControlPort; step i's server listens
// on PortOf(i) (fabtests' provider port and iperf3's) and fabtests' out-of-band
// socket on PortOf(i)+1. A port per step keeps a late client from reaching
// the server of another step.
const (
	ControlPort = 29100
	// MaxSteps keeps the ports below 33300.
	MaxSteps = 2048
)

// PortOf is step i's server port.
func PortOf(i int) int { return ControlPort + 2 + 2*i }

// ScopeIntraChiplet labels an explicit pair whose ends share a chiplet.
const ScopeIntraChiplet = "intraChiplet"

// Input is the part of a NetworkBenchmark's spec its pods need.
type Input struct {
	Nodes    int32                     `json:"nodes"`
	Pairs    benchv1.NetworkPairs      `json:"pairs"`
	Fabtests *benchv1.FabtestsSettings `json:"fabtests,omitempty"`
	IPerf3   *benchv1.IPerf3Settings   `json:"iperf3,omitempty"`
}

// InputOf takes the Input from a spec.
func InputOf(s *benchv1.NetworkBenchmarkSpec) Input {
	return Input{Nodes: s.NodesOrDefault(), Pairs: s.Pairs, Fabtests: s.Fabtests, IPerf3: s.IPerf3}
}

// Tests are the programs each pair runs, in order.
func (in *Input) Tests() []string {
	if in.IPerf3 != nil {
		return []string{"iperf3"}
	}
	if in.Fabtests != nil {
		return in.Fabtests.Tests
	}
	return nil
}

// End is one end of a pair: a CPU of the node in slot Node.
type End struct {
	Node int `json:"node"`
	topology.End
}

// Pair is a server and a client end and where they are to each other.
type Pair struct {
	Scope  string `json:"scope"`
	Server End    `json:"server"`
	Client End    `json:"client"`
}

// Name is how reports and the status name the pair: "n0:c0 -> n1:c8".
func (p Pair) Name() string {
	return fmt.Sprintf("n%d:c%d -> n%d:c%d", p.Server.Node, p.Server.CPU, p.Client.Node, p.Client.CPU)
}

// Step is one test between one pair.
type Step struct {
	Index int    `json:"index"`
	Test  string `json:"test"`
	Pair  Pair   `json:"pair"`
}

// Port is the step's server port.
func (s Step) Port() int { return PortOf(s.Index) }

// Involves tells whether the node in slot takes part in the step.
func (s Step) Involves(slot int) bool {
	return s.Pair.Server.Node == slot || s.Pair.Client.Node == slot
}

// Plan is the steps of a benchmark, the same on every node: for each test,
// each pair, in order; the generated pairs of every node (intra-node) then
// from each node to the next (inter-node). Every node runs its own steps in
// this order, so two nodes always meet at the step they share. All nodes are
// taken to have the topology topo; Digest lets them check that they agree.
func Plan(in Input, topo *topology.Topology) ([]Step, error) {
	pairs, err := pairsOf(in, topo)
	if err != nil {
		return nil, err
	}
	var steps []Step
	for _, test := range in.Tests() {
		for _, p := range pairs {
			steps = append(steps, Step{Index: len(steps), Test: test, Pair: p})
		}
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("no step: the spec has no test")
	}
	if len(steps) > MaxSteps {
		return nil, fmt.Errorf("%d steps (%d pairs x %d tests) is more than %d: use fewer scopes, tests or nodes", len(steps), len(pairs), len(in.Tests()), MaxSteps)
	}
	return steps, nil
}

// Digest identifies a plan: nodes whose plans differ must not pair up.
func Digest(steps []Step) string {
	b, _ := json.Marshal(steps)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// pairsOf are the explicit pairs, or the generated ones of every node.
func pairsOf(in Input, topo *topology.Topology) ([]Pair, error) {
	nodes := int(max(in.Nodes, 1))
	if len(in.Pairs.Explicit) > 0 {
		return explicitPairs(in.Pairs.Explicit, nodes, topo)
	}
	from := 0
	if in.Pairs.From != nil {
		from = int(in.Pairs.From.Chiplet)
	}
	var local, remote []topology.Scope
	for _, s := range in.Pairs.Scopes {
		if s == benchv1.ScopeInterNode {
			remote = append(remote, topology.InterNode)
		} else {
			local = append(local, topology.Scope(s))
		}
	}
	var out []Pair
	if len(local) > 0 {
		ps, err := topology.Pairs(topo, nil, from, local)
		if err != nil {
			return nil, err
		}
		for node := range nodes {
			for _, p := range ps {
				out = append(out, Pair{Scope: string(p.Scope), Server: End{node, p.Server}, Client: End{node, p.Client}})
			}
		}
	}
	if len(remote) > 0 {
		if nodes < 2 {
			return nil, fmt.Errorf("the interNode scope needs nodes: 2 or more")
		}
		ps, err := topology.Pairs(topo, topo, from, remote)
		if err != nil {
			return nil, err
		}
		for _, node := range ringStarts(nodes) {
			for _, p := range ps {
				out = append(out, Pair{Scope: string(p.Scope), Server: End{node, p.Server}, Client: End{(node + 1) % nodes, p.Client}})
			}
		}
	}
	return out, nil
}

// ringStarts are the servers of inter-node pairs: each node to the next,
// and with two nodes only the first to the second (the way back is the
// same link).
func ringStarts(nodes int) []int {
	if nodes == 2 {
		return []int{0}
	}
	out := make([]int, nodes)
	for i := range out {
		out[i] = i
	}
	return out
}

// explicitPairs places the spec's pairs in the topology: their chiplet and
// package, and their scope.
func explicitPairs(list []benchv1.ExplicitPair, nodes int, topo *topology.Topology) ([]Pair, error) {
	byID := map[int]topology.CPU{}
	for _, c := range topo.CPUs {
		byID[c.ID] = c
	}
	end := func(e benchv1.PairEnd, what string, i int) (End, error) {
		if int(e.Node) >= nodes {
			return End{}, fmt.Errorf("pair %d: the %s's node %d does not exist: node indexes run from 0 to %d", i, what, e.Node, nodes-1)
		}
		c, ok := byID[int(e.CPU)]
		if !ok {
			return End{}, fmt.Errorf("pair %d: the %s's CPU %d is not online here: CPUs %s are", i, what, e.CPU, cpuList(topo))
		}
		return End{Node: int(e.Node), End: topology.End{CPU: c.ID, Chiplet: c.Chiplet, Package: c.Package}}, nil
	}
	out := make([]Pair, 0, len(list))
	for i, p := range list {
		s, err := end(p.Server, "server", i)
		if err != nil {
			return nil, err
		}
		c, err := end(p.Client, "client", i)
		if err != nil {
			return nil, err
		}
		scope := string(topology.IntraSocket)
		switch {
		case s.Node != c.Node:
			scope = string(topology.InterNode)
		case s.Package != c.Package:
			scope = string(topology.InterSocket)
		case s.Chiplet == c.Chiplet:
			scope = ScopeIntraChiplet
		}
		out = append(out, Pair{Scope: scope, Server: s, Client: c})
	}
	return out, nil
}

// cpuList is the online CPUs in the kernel's notation.
func cpuList(t *topology.Topology) string {
	ids := make([]int, len(t.CPUs))
	for i, c := range t.CPUs {
		ids[i] = c.ID
	}
	return topology.FormatList(ids)
}
