package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/local"
)

func newRunCommand() *cobra.Command {
	var file, workDir, resultsDir, mpirun string
	cmd := &cobra.Command{
		Use:   "run -f FILE",
		Short: "Run the benchmarks of a spec file on this machine",
		Long: `Run the StorageBenchmarks and MPIBenchmarks of FILE here: the same spec as in a
cluster, with local directories instead of volumes and every MPI rank on this
machine (layout.nodes x ranksPerNode ranks; mpirun and the OSU, IMB or IOR
programs must be on PATH). Progress goes to stderr, the results table to stdout,
and the result files (samples.ndjson, samples.csv, summary.json, nodes.json,
raw/) to RESULTS/<name>/.`,
		Example: `  benchwright run -f examples/quickstart/fio.yaml
  benchwright run -f examples/seeds/s4-dd-io-modes.yaml --dir /mnt/scratch
  benchwright run -f examples/quickstart/osu-latency.yaml --mpirun mpirun.openmpi`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return errors.New("give the spec file with -f FILE")
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := local.Options{WorkDir: workDir, ResultsDir: resultsDir, Progress: cmd.ErrOrStderr()}
			return runFile(ctx, cmd, file, local.MPIOptions{Options: opts, MPIRun: mpirun})
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "spec file (YAML with one or more benchmarks)")
	cmd.Flags().StringVar(&workDir, "dir", "", "directory to do the I/O in: put it on the disk to measure (default: the system temp dir)")
	cmd.Flags().StringVar(&resultsDir, "results", "benchwright-results", "directory for the result files")
	cmd.Flags().StringVar(&mpirun, "mpirun", "mpirun", "the mpirun for MPIBenchmarks, of the spec's MPI (e.g. mpirun.mpich for an MPICH spec)")
	return cmd
}

func runFile(ctx context.Context, cmd *cobra.Command, file string, opts local.MPIOptions) error {
	specs, skipped, err := local.LoadFile(file)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintf(cmd.ErrOrStderr(), "benchwright: skipping %s: it needs a cluster\n", s)
	}
	out := cmd.OutOrStdout()
	for _, spec := range specs {
		var res *local.Result
		var printTable func() error
		var exps []benchv1.Expectation
		if spec.Storage != nil {
			res, err = local.RunStorage(ctx, spec.Storage, opts.Options)
			printTable = func() error { return local.PrintTable(out, res.Summaries) }
			exps = spec.Storage.Spec.Expectations
		} else {
			res, err = local.RunMPI(ctx, spec.MPI, opts)
			printTable = func() error { return local.PrintMPITable(out, spec.MPI.Spec.Suite, res.Summaries) }
			exps = spec.MPI.Spec.Expectations
		}
		if err != nil {
			return fmt.Errorf("%s: %w", spec.Name(), err)
		}
		fmt.Fprintf(out, "\n%s (%s, %s, medians over %d counted repetition(s))\n", res.Name, res.Node.Hostname, res.Node.CPUModel, countedReps(res))
		if err := printTable(); err != nil {
			return err
		}
		if err := local.PrintExpectations(out, exps, res.Summaries); err != nil {
			return err
		}
		fmt.Fprintf(out, "results: %s/\n", res.Dir)
	}
	return nil
}

func countedReps(res *local.Result) int {
	if len(res.Summaries) == 0 {
		return 0
	}
	return res.Summaries[0].Stats.N
}
