package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/report"
)

func newCompareCommand() *cobra.Command {
	flags := tableFlags{format: "text"}
	var baseline string
	var cluster clusterFlags
	cmd := &cobra.Command{
		Use:   "compare A B [C...]",
		Short: "Compare runs with a baseline: medians and speedups per test and metric",
		Long: `Line up the figures of runs, per test, metric and message size, with each
run's median and its speedup over the baseline: the first run of A unless
--baseline names another. A speedup above 1x is better than the baseline:
baseline/value for lower-is-better metrics (latencies, durations),
value/baseline otherwise ("c3 random read = 2.60x c2"). Runs whose tools print
other units are converted exactly (MiB/s and MB/s, µs and ms).

` + inputsHelp,
		Example: `  benchwright compare results/fio-c2 results/fio-c3 results/fio-c2d
  benchwright compare on-node.ndjson off-node.ndjson --format md
  benchwright compare store/default/MPIBenchmark/ --baseline s3-0-default --format csv`,
		Args: cluster.inputsArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := cluster.loadRuns(cmd.Context(), args)
			if err != nil {
				return err
			}
			if len(runs) < 2 {
				return fmt.Errorf("compare needs at least two runs; %s holds one, %s", strings.Join(args, " "), runs[0].Name)
			}
			base := 0
			if baseline != "" {
				if base, err = report.Find(runs, baseline); err != nil {
					return err
				}
			}
			rows, err := report.Compare(runs, base, flags.all)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			switch flags.format {
			case "text":
				return report.WriteCompareText(w, runs, base, rows)
			case "md":
				return report.WriteCompareMarkdown(w, runs, base, rows)
			case "csv":
				return report.WriteCompareCSV(w, runs, base, rows)
			}
			return fmt.Errorf("unknown --format %q (text, md or csv)", flags.format)
		},
	}
	flags.register(cmd, "text", "md", "csv")
	cluster.register(cmd)
	cmd.Flags().StringVar(&baseline, "baseline", "", "the run the others are compared with (default: the first)")
	return cmd
}
