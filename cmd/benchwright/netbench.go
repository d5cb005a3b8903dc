package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/topology"
)

// netbenchFlags are what a NetworkBenchmark's pod is told.
type netbenchFlags struct {
	slot        int
	input       string
	peers       string
	node, self  string
	sysfs       string
	stepTimeout time.Duration
	linger      time.Duration
}

func newNetbenchCommand() *cobra.Command {
	var f netbenchFlags
	cmd := &cobra.Command{
		Use:   "netbench",
		Short: "Run one node's share of a NetworkBenchmark (the command of its pods)",
		Long: `Run the steps of a NetworkBenchmark that involve this node (--slot): read the
CPU topology from sysfs, plan every step the same way the other nodes do, and
run this node's in plan order, each end pinned to its CPU with taskset.

Intra-node steps run server and client here over loopback. For an inter-node
step the server's node answers on port 29100 once its server listens, and the
client's node waits for that answer before it connects. When a step fails, the
node says so on that port for --linger, so that its peers stop at once.

Progress goes to stdout, as the report does. At the end one line

  ==> benchwright netbench report <==

is printed on stdout, followed by the report as one JSON line: the topology,
the cpuset, and every step's command and output. The exit code is 1 when a step
failed.`,
		Example: `  benchwright netbench --slot 0 --input '{"nodes":1,"pairs":{"explicit":[{"server":{"cpu":0},"client":{"cpu":1}}]},"iperf3":{"seconds":5}}'`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			// One stream, one writer at a time: the container runtime splits a
			// long line into chunks, and a progress line of another stream or
			// goroutine landing between them broke the report's JSON.
			out := &lockedWriter{w: cmd.OutOrStdout()}
			rep, err := runNetbench(ctx, f, func(format string, args ...any) {
				fmt.Fprintf(out, "benchwright netbench: "+format+"\n", args...)
			})
			if err != nil {
				return err
			}
			if err := rep.Write(out); err != nil {
				return err
			}
			if rep.Error != "" {
				fmt.Fprintln(out, "benchwright netbench:", rep.Error)
				return &exitError{code: 1}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.slot, "slot", 0, "this node's index among the benchmark's nodes")
	fl.StringVar(&f.input, "input", "", "the benchmark's nodes, pairs and tool settings, as JSON")
	fl.StringVar(&f.peers, "peers", "", "comma-separated host names of every node's pod, by index")
	fl.StringVar(&f.node, "node", os.Getenv("NODE_NAME"), "this node's name, for the report (default $NODE_NAME)")
	fl.StringVar(&f.self, "self", os.Getenv("POD_IP"), "this pod's address for inter-node steps (default $POD_IP)")
	fl.StringVar(&f.sysfs, "sysfs", "/sys", "where sysfs is mounted")
	fl.DurationVar(&f.stepTimeout, "step-timeout", 2*time.Hour, "bound on each step, the wait for the peer included")
	fl.DurationVar(&f.linger, "linger", 30*time.Second, "after a failure, how long to tell the peers")
	_ = cmd.MarkFlagRequired("input")
	_ = cmd.MarkFlagDirname("sysfs")
	return cmd
}

// runNetbench plans and runs this node's steps.
func runNetbench(ctx context.Context, f netbenchFlags, progress func(string, ...any)) (*netbench.Report, error) {
	var in netbench.Input
	dec := json.NewDecoder(strings.NewReader(f.input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("--input: %w", err)
	}
	topo, err := topology.Read(f.sysfs)
	if err != nil {
		return nil, fmt.Errorf("reading the CPU topology under %s: %w", f.sysfs, err)
	}
	node := f.node
	if node == "" {
		node, _ = os.Hostname()
	}
	steps, err := netbench.Plan(in, topo)
	if err != nil {
		// Still a report: the controller shows the topology and the reason.
		return &netbench.Report{Slot: f.slot, Node: node, Topology: topo, Error: err.Error()}, nil
	}
	var peers []string
	if f.peers != "" {
		peers = strings.Split(f.peers, ",")
	}
	progress("node %d (%s): %d CPUs, %d chiplets by %s; %d steps in the plan %s", f.slot, node, len(topo.CPUs), topo.Chiplets(), topo.ChipletsFrom, len(steps), netbench.Digest(steps))
	r := &netbench.Runner{
		Input: in, Steps: steps, Slot: f.slot, Node: node, Topology: topo, Self: f.self, Peers: peers,
		StepTimeout: f.stepTimeout, Linger: f.linger, Progress: progress,
	}
	return r.Run(ctx), nil
}

// lockedWriter writes each call whole, whichever goroutine makes it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
