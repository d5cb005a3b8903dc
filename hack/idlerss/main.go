// Command idlerss measures the memory of idle managers: it starts a real API
// server (envtest, with benchwright's CRDs and the MPIJob CRD), then runs each
// manager binary in turn (read from disk, not the page cache), alternated over
// PAIRS pairs, waits until its controllers have synced their caches and
// started their workers, lets it settle, and reads its /proc figures (VmRSS,
// VmHWM, anonymous and file-backed resident pages) and its Go runtime's (heap,
// stacks, Sys) from its /metrics. hack/bench-idle-rss.sh builds the binaries
// and runs it.
//
//	idlerss [-pairs 5] [-settle 10s] [-controllers 5] [-nodes 0] [-heap-profile FILE] [-new-env NAME=VALUE,...] OLD NEW
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/benchwright/benchwright/test/util"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "idlerss:", err)
		os.Exit(1)
	}
}

func run() error {
	pairs := flag.Int("pairs", 5, "pairs of runs, alternated (old first in odd pairs, new first in even ones)")
	settle := flag.Duration("settle", 10*time.Second, "how long a manager idles after its workers started, before it is measured")
	controllers := flag.Int("controllers", 5, "controllers whose workers must have started (\"Starting workers\" lines)")
	heapProfile := flag.String("heap-profile", "", "write NEW's heap profile (its --pprof-bind-address) of the last pair to this file")
	newEnv := flag.String("new-env", "", "comma-separated NAME=VALUE the NEW manager runs with (e.g. the chart's GOGC=50)")
	nodes := flag.Int("nodes", 0, "Nodes to create first, like the dev cluster's kwok nodes (the manager caches Nodes)")
	flag.Parse()
	if flag.NArg() != 2 {
		return fmt.Errorf("usage: idlerss [flags] OLD NEW")
	}
	bins := [2]string{flag.Arg(0), flag.Arg(1)}

	if err := util.SetEnvtestAssets(); err != nil {
		return err
	}
	mpiJobCRD, err := util.MPIJobCRD()
	if err != nil {
		return err
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{util.CRDDir(), mpiJobCRD}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("starting envtest: %w", err)
	}
	defer func() { _ = env.Stop() }()
	dir, err := os.MkdirTemp("", "idlerss")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	kubeconfig, err := writeKubeconfig(env, dir)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if err := createNodes(ctx, cfg, *nodes); err != nil {
		return err
	}

	var ratios [][]float64
	out := bufio.NewWriter(os.Stdout)
	defer func() { _ = out.Flush() }()
	fmt.Fprintf(out, "%-4s %-4s %s\n", "pair", "bin", header())
	for p := 1; p <= *pairs; p++ {
		order := []int{0, 1}
		if p%2 == 0 {
			order = []int{1, 0}
		}
		var got [2]sample
		for _, i := range order {
			profile := ""
			if i == 1 && p == *pairs {
				profile = *heapProfile
			}
			var env []string
			if i == 1 && *newEnv != "" {
				env = strings.Split(*newEnv, ",")
			}
			s, err := measure(ctx, bins[i], env, kubeconfig, dir, *controllers, *settle, profile)
			if err != nil {
				return fmt.Errorf("pair %d, %s: %w", p, bins[i], err)
			}
			got[i] = s
			fmt.Fprintf(out, "%-4d %-4s %s\n", p, []string{"old", "new"}[i], s.row())
			_ = out.Flush()
		}
		r := got[1].ratios(got[0])
		ratios = append(ratios, r)
		fmt.Fprintf(out, "%-4d %-4s %s\n", p, "n/o", ratioRow(r))
	}
	med := make([]float64, len(ratios[0]))
	for c := range med {
		col := make([]float64, len(ratios))
		for i, r := range ratios {
			col[i] = r[c]
		}
		med[c] = median(col)
	}
	fmt.Fprintf(out, "%-9s %s\n", "median", ratioRow(med))
	return nil
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
