package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/sampler"
)

// newSampleCommand is the sampler sidecar of every benchmark pod: an
// unprivileged native sidecar of the manager's image runs it with a fixed
// argv, for as long as the pod's tool runs.
func newSampleCommand() *cobra.Command {
	var (
		root     string
		interval time.Duration
		budget   int64
		procs    bool
		volumes  []string
	)
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Print what this node does, every interval, until stopped (the sampler sidecar of benchmark pods)",
		Long: `Read, without privileges, every --interval: the node's CPU time in total
and per core (/proc/stat), its memory (/proc/meminfo) and pressure stalls
(/proc/pressure), its disks (/proc/diskstats), this network namespace's
interfaces (/proc/net/dev) and, with --procs, the CPU and memory of the
processes in sight (a pod that shares its process namespace: the
benchmark's). Each interval is one line, "` + sampler.PointPrefix + `{...}", after a
header line that names the fields and the disks behind --volume paths.

The output stays within --budget bytes: each time half of what is left is
spent, the interval doubles. SIGTERM ends the series with the last,
partial interval.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if interval < 100*time.Millisecond || interval > time.Hour {
				return fmt.Errorf("--interval is between 100ms and 1h, not %s", interval)
			}
			if budget < 64<<10 {
				return fmt.Errorf("--budget is at least 65536 bytes, not %d", budget)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			src := sampler.Source{Root: root, Procs: procs, Self: os.Getpid()}
			w := &sampler.Writer{Out: cmd.OutOrStdout(), Source: src, Interval: interval, Budget: budget}
			if len(volumes) > 0 {
				w.Volumes = src.VolumeDevices(volumes)
			}
			return w.Run(ctx)
		},
	}
	cmd.Flags().DurationVar(&interval, "interval", time.Second, "time between two readings (spec.monitoring.interval)")
	cmd.Flags().Int64Var(&budget, "budget", sampler.DefaultBudget, "bytes the series may take in the log, the kubelet's prefix of each line counted")
	cmd.Flags().BoolVar(&procs, "procs", false, "also read the CPU and memory of every process in sight but this one")
	cmd.Flags().StringArrayVar(&volumes, "volume", nil, "a path whose disk the header names (repeatable)")
	cmd.Flags().StringVar(&root, "root", "/", "where /sys and /proc are (tests point it at a temporary directory)")
	return cmd
}
