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
	"github.com/benchwright/benchwright/internal/resultsdb"
)

func newRunCommand() *cobra.Command {
	var file, workDir, resultsDir, mpirun, toolDir, resultsDB string
	cmd := &cobra.Command{
		Use:   "run -f FILE",
		Short: "Run the benchmarks of a spec file on this machine",
		Long: `Run the StorageBenchmarks, MPIBenchmarks and NetworkBenchmarks of FILE here: the
same spec as in a cluster, with local directories instead of volumes, every MPI
rank on this machine (layout.nodes x ranksPerNode ranks; mpirun and the OSU, IMB
or IOR programs must be on PATH), and this machine as a NetworkBenchmark's one
node (its intra-node pairs, each end pinned with taskset; fabtests or iperf3 on
PATH or in --tool-dir). Progress goes to stderr, the results table to stdout,
and the result files (samples.ndjson, samples.csv, summary.json, nodes.json,
raw/) to RESULTS/<name>/.`,
		Example: `  benchwright run -f examples/quickstart/fio.yaml
  benchwright run -f examples/seeds/s4-dd-io-modes.yaml --dir /mnt/scratch
  benchwright run -f examples/quickstart/osu-latency.yaml --mpirun mpirun.openmpi
  benchwright run -f examples/quickstart/fabtests-pair.yaml --tool-dir "$(hack/bench-tools.sh fabtests | cut -d= -f2)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// SIGPIPE too: with `| head`, a write to the closed pipe would
			// otherwise kill the process before it removes its scratch files.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
			defer stop()
			opts := local.Options{WorkDir: workDir, ResultsDir: resultsDir, Progress: cmd.ErrOrStderr()}
			return runFile(ctx, cmd, file, runOptions{
				mpi: local.MPIOptions{Options: opts, MPIRun: mpirun}, network: local.NetworkOptions{Options: opts, ToolDir: toolDir},
				resultsDB: resultsDB,
			})
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "spec file (YAML with one or more benchmarks)")
	cmd.Flags().StringVar(&workDir, "dir", "", "directory to do the I/O in: put it on the disk to measure (default: the system temp dir)")
	cmd.Flags().StringVar(&resultsDir, "results", "benchwright-results", "directory for the result files")
	cmd.Flags().StringVar(&mpirun, "mpirun", "mpirun", "the mpirun for MPIBenchmarks, of the spec's MPI (e.g. mpirun.mpich for an MPICH spec)")
	cmd.Flags().StringVar(&toolDir, "tool-dir", os.Getenv("BENCH_TOOLS_FABTESTS"), "a directory put first on PATH for NetworkBenchmarks, where fabtests were built (default $BENCH_TOOLS_FABTESTS)")
	cmd.Flags().StringVar(&resultsDB, "results-db", os.Getenv("BENCHWRIGHT_RESULTS_DB"), "also index each run in this results database, for benchwright history --db: sqlite:///path/results.db or postgres://user@host/db (default $BENCHWRIGHT_RESULTS_DB)")
	_ = cmd.MarkFlagRequired("file")
	_ = cmd.MarkFlagFilename("file", "yaml", "yml", "json")
	for _, dir := range []string{"dir", "results", "tool-dir"} {
		_ = cmd.MarkFlagDirname(dir)
	}
	return cmd
}

// runOptions are the local run's options per kind.
type runOptions struct {
	mpi     local.MPIOptions
	network local.NetworkOptions
	// resultsDB, when set, indexes each run (benchwright history --db).
	resultsDB string
}

func runFile(ctx context.Context, cmd *cobra.Command, file string, opts runOptions) error {
	specs, skipped, err := local.LoadFile(file)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintf(cmd.ErrOrStderr(), "benchwright: skipping %s: it needs a cluster\n", s)
	}
	var db *resultsdb.DB
	if opts.resultsDB != "" {
		if db, err = resultsdb.Open(ctx, opts.resultsDB); err != nil {
			return err
		}
		defer func() { _ = db.Close() }()
	}
	out := cmd.OutOrStdout()
	for _, spec := range specs {
		var res *local.Result
		var printTable func() error
		var exps []benchv1.Expectation
		switch {
		case spec.Storage != nil:
			res, err = local.RunStorage(ctx, spec.Storage, opts.mpi.Options)
			printTable = func() error { return local.PrintTable(out, res.Summaries) }
			exps = spec.Storage.Spec.Expectations
		case spec.Network != nil:
			res, err = local.RunNetwork(ctx, spec.Network, opts.network)
			printTable = func() error { return local.PrintNetworkTable(out, res.Summaries) }
			exps = spec.Network.Spec.Expectations
		default:
			res, err = local.RunMPI(ctx, spec.MPI, opts.mpi)
			printTable = func() error { return local.PrintMPITable(out, spec.MPI.Spec.Suite, res.Summaries) }
			exps = spec.MPI.Spec.Expectations
		}
		if errors.Is(err, local.ErrInterrupted) {
			return &exitError{code: 130, err: fmt.Errorf("%s: %w", spec.Name(), err)}
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
		if db != nil {
			if _, err := db.Index(ctx, resultsdb.RunOf(res.Summary(), res.Dir+"/"), resultsdb.SamplesOf(res.Samples)); err != nil {
				return err
			}
			fmt.Fprintf(out, "indexed in %s (benchwright history --db)\n", db)
		}
	}
	return nil
}

func countedReps(res *local.Result) int {
	if len(res.Summaries) == 0 {
		return 0
	}
	return res.Summaries[0].Stats.N
}
