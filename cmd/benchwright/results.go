package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/page"
)

// inputsHelp says what the results, compare and report commands read.
const inputsHelp = `Inputs are NDJSON sample files (the output of 'benchwright parse', or a run's
samples.ndjson), or directories: a 'benchwright run' results directory or an
artifact-store run directory (holding samples.ndjson), or any directory above
them (every samples.ndjson below it, runs in the order they started); an
artifact-store URL (gs://bucket/prefix, s3://..., file:///...) for every run
below it; or names of benchmarks in a cluster, and -l selects every succeeded
benchmark with those labels — their results are read from status.artifactURI.
The cluster is found as kubectl finds it (--kubeconfig, $KUBECONFIG or
~/.kube/config, --context), in the namespace of -n, else of the context.
Files, directories and URLs alone need no cluster. Samples are grouped into
runs by kind, namespace, benchmark and run UID; samples that name no benchmark
(parsed files) take their file's name. Warm-up repetitions are left out.`

// tableFlags are the flags of the commands that print tables.
type tableFlags struct {
	format string
	all    bool
}

func (f *tableFlags) register(cmd *cobra.Command, formats ...string) {
	cmd.Flags().StringVar(&f.format, "format", f.format, "output format: "+strings.Join(formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().BoolVar(&f.all, "all", false, "every metric, not only the headline ones (IOPS, bandwidth, mean and p99 latency)")
}

// loadRuns reads the runs of the sample files, directories, store URLs and
// cluster benchmarks in args and the cluster flags; with beside, also
// whether each was alone on its machine (compare.ReadBeside).
func (f clusterFlags) loadRuns(ctx context.Context, args []string, beside bool) ([]compare.Run, error) {
	src, err := f.resolveInputs(ctx, args)
	if err != nil {
		return nil, err
	}
	runs, err := compare.Load(ctx, src)
	if err != nil || !beside {
		return runs, err
	}
	return runs, compare.ReadBeside(ctx, src, runs)
}

func newResultsCommand() *cobra.Command {
	flags := tableFlags{format: "text"}
	var cluster clusterFlags
	cmd := &cobra.Command{
		Use:   "results FILE|DIR...|-l SELECTOR",
		Short: "Print the statistics of runs' figures over their repetitions",
		Long: `Print, per run, each test's figures (per message size where the test has them)
as median, min, max and CV over the counted repetitions, as 'benchwright run'
prints them.

` + inputsHelp,
		Example: `  benchwright results benchwright-results/quickstart-fio
  benchwright parse --tool osu lat.txt > lat.ndjson && benchwright results lat.ndjson
  benchwright results --format csv --all store/default/ > figures.csv`,
		Args: cluster.inputsArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := cluster.loadRuns(cmd.Context(), args, false)
			if err != nil {
				return err
			}
			return writeResults(cmd.OutOrStdout(), flags, runs)
		},
	}
	flags.register(cmd, "text", "md", "csv")
	cluster.register(cmd)
	return cmd
}

func writeResults(w io.Writer, flags tableFlags, runs []compare.Run) error {
	rows := compare.Table(runs, flags.all || flags.format == "csv")
	switch flags.format {
	case "text":
		return page.WriteText(w, runs, rows)
	case "md":
		return page.WriteFiguresMarkdown(w, runs, rows)
	case "csv":
		return page.WriteCSV(w, runs, rows)
	}
	return fmt.Errorf("unknown --format %q (text, md or csv)", flags.format)
}

// inputsArgs wants at least one input: an argument, or a --selector.
func (f *clusterFlags) inputsArgs(_ *cobra.Command, args []string) error {
	if len(args) == 0 && f.selector == "" {
		return errors.New("name at least one input (a file, a directory, a store URL or a benchmark), or select benchmarks with -l")
	}
	return nil
}
