package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/page"
)

func newCompareCommand() *cobra.Command {
	flags := tableFlags{format: "text"}
	var baseline baselineFlag
	var opts compare.Options
	var cluster clusterFlags
	cmd := &cobra.Command{
		Use:   "compare A B [C...]",
		Short: "Compare runs with a baseline: medians and speedups per test and metric",
		Long: `Line up the figures of runs, per test, metric and message size, with each
run's median and its speedup over the baseline. Runs that differ in a label
(machine_type, placement, x-NAME...), or a campaign's (-l) in their pools,
tunings or benchmarks, are compared along each such dimension,
a table each: within each group of runs that differ in it alone, each run
against the group's run of the dimension's baseline value (--baseline
DIMENSION=VALUE, repeatable; default: its first value), as the report does.
Runs that differ in no label, or --baseline RUN, are compared with one run:
the first run of A unless --baseline names another. A speedup above 1x is better than the baseline:
baseline/value for lower-is-better metrics (latencies, durations),
value/baseline otherwise ("c3 random read = 2.60x c2"); --ratio value divides
as measured instead ("off-node / on-node latency = 75x"). Runs whose tools
print other units are converted exactly (MiB/s and MB/s, µs and ms).

Each ratio comes with the p of a Mann-Whitney U test over the repetitions
of both runs, decided over the table with a false discovery rate of 5 %
(Benjamini-Hochberg), as benchstat does: "2.60x [2.55–2.66] p=0.0079" for a
difference decided (with the ratio's 95 % interval from 4 repetitions a
side), "1.09x ~ p=0.10; 6 a side would decide" for one not decided (3 vs 3
never is), and ! when a run's coefficient of variation is above --max-cv.

` + inputsHelp,
		Example: `  benchwright compare results/fio-c2 results/fio-c3 results/fio-c2d
  benchwright compare on-node.ndjson off-node.ndjson --format md --ratio value
  benchwright compare store/default/MPIBenchmark/ --baseline s3-0-default --format csv
  benchwright compare -l benchwright.io/campaign=s0-x7k2p --baseline pool=c2-standard-60`,
		Args: cluster.inputsArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := cluster.loadRuns(cmd.Context(), args, true)
			if err != nil {
				return err
			}
			if len(runs) < 2 {
				return fmt.Errorf("compare needs at least two runs; %s holds one, %s", strings.Join(args, " "), runs[0].Name)
			}
			opts.All = flags.all
			run, dims, err := baseline.parse()
			if err != nil {
				return err
			}
			if run == "" {
				// A campaign's runs (-l): its pools, tunings and benchmarks
				// are dimensions too.
				view, err := cluster.campaignCells(cmd.Context(), campaign.Params{})
				if err != nil {
					return err
				}
				if err := page.Baselines(runs, view.campaign, dims); err != nil {
					return fmt.Errorf("--baseline: %w", err)
				}
				rep, err := page.New(runs, page.Options{Campaign: view.campaign, Cells: view.cells, Baselines: dims,
					Lead: baseline.lead(), All: opts.All, Ratio: opts.Ratio, MaxCV: opts.MaxCV})
				if err != nil {
					return err
				}
				if len(rep.Along) > 0 {
					return writeAlong(cmd.OutOrStdout(), flags.format, rep)
				}
			}
			base := 0
			if run != "" {
				if base, err = compare.Find(runs, run); err != nil {
					return err
				}
			}
			rows, err := compare.With(runs, base, opts)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			switch flags.format {
			case "text":
				return page.WriteCompareText(w, runs, base, rows)
			case "md":
				return page.WriteCompareMarkdown(w, runs, base, rows)
			case "csv":
				return page.WriteCompareCSV(w, runs, base, rows)
			}
			return fmt.Errorf("unknown --format %q (text, md or csv)", flags.format)
		},
	}
	flags.register(cmd, "text", "md", "csv")
	cluster.register(cmd)
	baseline.register(cmd)
	registerRatioFlags(cmd, &opts.Ratio, &opts.MaxCV)
	return cmd
}

// writeAlong writes a report's comparisons along its dimensions in format.
func writeAlong(w io.Writer, format string, rep *page.Report) error {
	switch format {
	case "text":
		return page.WriteAlongText(w, rep.Along)
	case "md":
		return page.WriteAlongMarkdown(w, rep.Along)
	case "csv":
		return page.WriteAlongCSV(w, rep.Runs, rep.Along)
	}
	return fmt.Errorf("unknown --format %q (text, md or csv)", format)
}

// registerRatioFlags adds how a comparison divides and when it calls a
// figure too noisy.
func registerRatioFlags(cmd *cobra.Command, ratio *compare.Ratio, maxCV *float64) {
	*ratio = compare.RatioSpeedup
	cmd.Flags().StringVar((*string)(ratio), "ratio", string(compare.RatioSpeedup),
		"speedup: above 1x is better (baseline/value for latencies); value: value/baseline as measured (off-node/on-node latency = 75x)")
	cmd.Flags().Float64Var(maxCV, "max-cv", compare.DefaultMaxCV, "mark (!) figures whose coefficient of variation over repetitions is above this percentage")
}
