package local

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/topology"
)

const kindNetwork = "NetworkBenchmark"

// NetworkOptions are Options plus what only network runs need.
type NetworkOptions struct {
	Options
	// ToolDir is prepended to PATH for the tools (where fabtests were built).
	ToolDir string
	// SysfsRoot is where the topology is read; default /sys.
	SysfsRoot string
}

// RunNetwork runs a NetworkBenchmark here: this machine is its one node, so
// its intra-node pairs run, each end pinned with taskset, and inter-node
// pairs are left out (they are named). It writes the result files, with the
// topology in nodes.json, and returns them.
func RunNetwork(ctx context.Context, in *benchv1.NetworkBenchmark, nopts NetworkOptions) (*Result, error) {
	opts := nopts.withDefaults()
	b := in.DeepCopy()
	defaultNetwork(b)
	spec := &b.Spec
	if spec.WarmupRepetitions >= spec.Repetitions {
		return nil, fmt.Errorf("warmupRepetitions (%d) must be smaller than repetitions (%d), or no repetition is left to count", spec.WarmupRepetitions, spec.Repetitions)
	}
	topo, err := topology.Read(cmp.Or(nopts.SysfsRoot, "/sys"))
	if err != nil {
		return nil, fmt.Errorf("reading this machine's CPU topology: %w", err)
	}
	input, left := oneNode(netbench.InputOf(spec))
	steps, err := netbench.Plan(input, topo)
	if err != nil {
		return nil, err
	}
	env := []string{}
	if nopts.ToolDir != "" {
		env = append(env, "PATH="+nopts.ToolDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if err := requireNetworkTools(input, nopts.ToolDir); err != nil {
		return nil, err
	}
	res, err := newResult(kindNetwork, b.Name, b.Namespace, b.Labels, opts)
	if err != nil {
		return nil, err
	}
	res.Node.Topology, res.Node.AllowedCPUs = topo, ""
	opts.progress("%s: %s, %d pair(s) x %d test(s), %s", b.Name, describeTool(spec), len(steps)/len(input.Tests()),
		len(input.Tests()), describeRepetitions(spec.RepetitionPolicy))
	opts.progress("this machine: %d CPUs, %d socket(s), %d chiplet(s) (by %s)", len(topo.CPUs), topo.Packages(), topo.Chiplets(), topo.ChipletsFrom)
	if left != "" {
		opts.progress("left out: %s", left)
	}
	return res, res.repeat(ctx, opts, int(spec.Repetitions), int(spec.WarmupRepetitions), netbench.GroupBy, nil,
		func(ctx context.Context, rep int) ([]results.Sample, error) {
			r := &netbench.Runner{
				Input: input, Steps: steps, Node: res.Node.Hostname, Topology: topo, Self: "127.0.0.1", Env: env,
				StepTimeout: networkStepTimeout(spec), Progress: func(format string, args ...any) { opts.progress("  "+format, args...) },
			}
			report := r.Run(ctx)
			res.Node.AllowedCPUs = report.AllowedCPUs
			if err := writeReport(res, rep, report); err != nil {
				return nil, err
			}
			if report.Error != "" && report.Failed() == nil {
				return nil, fmt.Errorf("%s", report.Error)
			}
			return netbench.Samples(input, []*netbench.Report{report})
		})
}

// oneNode keeps the pairs that run on one node, and says what it left out.
func oneNode(in netbench.Input) (netbench.Input, string) {
	out := in
	out.Nodes = 1
	var left string
	if n := len(in.Pairs.Explicit); n > 0 {
		out.Pairs.Explicit = slices.DeleteFunc(slices.Clone(in.Pairs.Explicit), func(p benchv1.ExplicitPair) bool {
			return p.Server.Node != 0 || p.Client.Node != 0
		})
		if d := n - len(out.Pairs.Explicit); d > 0 {
			left = fmt.Sprintf("%d pair(s) on other nodes than node 0: a local run has one node", d)
		}
	}
	if slices.Contains(in.Pairs.Scopes, benchv1.ScopeInterNode) {
		out.Pairs.Scopes = slices.DeleteFunc(slices.Clone(in.Pairs.Scopes), func(s benchv1.NetworkScope) bool { return s == benchv1.ScopeInterNode })
		left = "the interNode pairs: a local run has one node"
	}
	if in.Nodes > 1 && left == "" {
		left = fmt.Sprintf("nodes %d: a local run is one node", in.Nodes)
	}
	return out, left
}

// networkStepTimeout bounds one step: the run timeout, as in a cluster.
func networkStepTimeout(spec *benchv1.NetworkBenchmarkSpec) time.Duration {
	if spec.Timeouts.Run != nil {
		return spec.Timeouts.Run.Duration
	}
	return 2 * time.Hour
}

// requireNetworkTools checks that taskset and the tool are on PATH.
func requireNetworkTools(in netbench.Input, dir string) error {
	tools := []string{"taskset"}
	if in.IPerf3 != nil {
		tools = append(tools, "iperf3")
	} else {
		tools = append(tools, in.Fabtests.Tests...)
	}
	for _, t := range tools {
		path := t
		if dir != "" {
			if _, err := os.Stat(dir + "/" + t); err == nil {
				continue
			}
		}
		if err := requireTool(path, t); err != nil {
			return err
		}
	}
	return nil
}

// writeReport keeps a repetition's report as raw/<rep>/netbench.json.
func writeReport(res *Result, rep int, report *netbench.Report) error {
	path, err := res.rawPath(rep, "netbench.log")
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.Write(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func describeTool(spec *benchv1.NetworkBenchmarkSpec) string {
	if spec.IPerf3 != nil {
		return fmt.Sprintf("iperf3 %s, %d stream(s), %ds", spec.IPerf3.Protocol, spec.IPerf3.Streams, spec.IPerf3.Seconds)
	}
	f := spec.Fabtests
	return fmt.Sprintf("fabtests %s over %s", strings.Join(f.Tests, ", "), f.Provider)
}

// defaultNetwork applies the defaults that a local run depends on: pairs.to,
// which the CRD does not default, and, for callers of RunNetwork that build
// the object in Go, the CRD's (LoadFile's specs already have them).
func defaultNetwork(b *benchv1.NetworkBenchmark) {
	s := &b.Spec
	s.Repetitions = s.RepetitionsOrDefault()
	s.Nodes = s.NodesOrDefault()
	if s.Pairs.To == "" && len(s.Pairs.Scopes) > 0 {
		s.Pairs.To = benchv1.EachChiplet
	}
	if f := s.Fabtests; f != nil {
		f.Provider = f.ProviderOrDefault()
	}
	if p := s.IPerf3; p != nil {
		p.Protocol = cmp.Or(p.Protocol, "TCP")
		p.Streams = p.StreamsOrDefault()
		if p.Seconds == 0 {
			p.Seconds = 10
		}
	}
}

// PrintNetworkTable writes, per test and pair, the peak of the median
// bandwidth over message sizes and the median latency at the smallest size;
// every size's figures are in the result files.
func PrintNetworkTable(w io.Writer, summaries []results.Summary) error {
	type key struct{ test, pair string }
	type row struct {
		scope         string
		peak, latency *results.Summary
	}
	var order []key
	rows := map[key]*row{}
	for i := range summaries {
		s := &summaries[i]
		k := key{s.Test, s.Labels[netbench.LabelPair]}
		r := rows[k]
		if r == nil {
			r = &row{scope: s.Labels[netbench.LabelScope]}
			rows[k] = r
			order = append(order, k)
		}
		switch s.Metric {
		case "bandwidth":
			if r.peak == nil || s.Stats.Median > r.peak.Stats.Median {
				r.peak = s
			}
		case "latency":
			// fabtests print usec/xfer for every test; only a ping-pong's is a latency.
			if !strings.Contains(s.Test, "pingpong") {
				continue
			}
			if r.latency == nil || size(s) < size(r.latency) {
				r.latency = s
			}
		}
	}
	out := [][]string{{"TEST", "PAIR", "SCOPE", "PEAK_BW", "AT_SIZE", "CV", "UNIT", "LATENCY", "AT_SIZE", "UNIT"}}
	for _, k := range order {
		r := rows[k]
		line := []string{k.test, k.pair, r.scope, "-", "-", "-", "-", "-", "-", "-"}
		if p := r.peak; p != nil {
			line[3], line[4], line[5], line[6] = results.FormatValue(p.Stats.Median), cmp.Or(p.Labels[results.LabelMsgSize], "-"), results.FormatCV(p.Stats), results.DisplayUnit(p.Unit)
		}
		if l := r.latency; l != nil {
			line[7], line[8], line[9] = results.FormatValue(l.Stats.Median), cmp.Or(l.Labels[results.LabelMsgSize], "-"), results.DisplayUnit(l.Unit)
		}
		out = append(out, line)
	}
	return writeAligned(w, out, func(col int) bool { return col < 3 || col == 6 || col == 9 })
}

func size(s *results.Summary) int64 {
	n, err := strconv.ParseInt(s.Labels[results.LabelMsgSize], 10, 64)
	if err != nil {
		return 1 << 62
	}
	return n
}
