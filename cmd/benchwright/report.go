package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/page"
)

func newReportCommand() *cobra.Command {
	var out, format string
	var baseline baselineFlag
	opts := page.Options{}
	var cluster clusterFlags
	var pub publishFlags
	var matrix campaign.Params
	history := true
	cmd := &cobra.Command{
		Use:   "report FILE|DIR...|-l SELECTOR [-o report.html] [--publish]",
		Short: "Write a report of runs: tables, comparison and plots",
		Long: `Write a report of runs: the runs, their comparisons and every figure's
statistics. The runs are compared along each dimension they differ in: a
campaign's pools, tunings and benchmarks (its benchmarks' campaign labels, in
the order --campaign-pools, --campaign-tunings and --campaign-benchmarks list
them), and any label whose value varies between runs (machine_type,
placement, x-NAME...; values in the order first seen, or by number), a label
that the dimensions before determine aside (a pool's machine type). Along
each, runs that differ in it alone are a group: each is divided by the
group's run of the baseline value (--baseline pool=c2; default: the first
value), per test, metric and message size, one table per dimension ("pool:
c3 / c2 and c2d / c2, per benchmark"). A group without a baseline run says so
(a failed cell). A dimension whose every step changes a node setting (a
tuning ladder: placement, SMT, tuning...) has each step against the step
before too. Runs that differ in no dimension, or a ladder outside a
campaign, are also compared with one run (--baseline RUN; default: the
first). As
HTML (one self-contained file: inline CSS and SVG plots, nothing fetched) it
also has plots chosen by the data: latency and bandwidth against message size
on log-log axes, a curve per run; box plots over repetitions; bars per test
and run (fio workloads per machine type, a tuning ladder in run order).
--format md and csv write the tables only. What the nodes did (the sampler's
summaries, source=sampler) is never among the figures: html and md have it in
a section of its own, per run and test, with a note where a core or the node
was >= 95% busy, a disk >= 95% utilised or steal >= 5% (also beside that
test's figures); html draws each run's series over time (monitor/ beside
samples.ndjson, at most 6 per run). When the runs differ in a numeric
label (cpu_mhz, the CPU frequency recorded with each run, or x-NAME from a
benchmark label benchwright.io/x-NAME), the report plots each headline figure
against it with a least-squares line per machine type and lists slope,
intercept and r²; --format fits-csv (or -o NAME.fits.csv) writes those fits.

--publish stores the report, as html, md and csv, in the manager's artifact
store as the campaign's (the value of benchwright.io/campaign in -l, or
--campaign): the manager's artifact server lists it. It authenticates with
the pod's ServiceAccount token (an Argo Workflow step) or --token-file; the
token needs create on campaignreports.benchwright.io in the namespace.

` + inputsHelp,
		Example: `  benchwright report results/ -o report.html --title "C3 vs C2"
  benchwright report on-node.ndjson off-node.ndjson -o osu.md
  benchwright report store/default/ --format csv > figures.csv
  benchwright report -n perf -l benchwright.io/campaign=s0-x7k2p --publish`,
		Args: cluster.inputsArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "" {
				format = formatOf(out)
			}
			if !slices.Contains(reportFormats, format) && format != fitsFormat {
				return fmt.Errorf("unknown --format %q (html, md, csv or %s)", format, fitsFormat)
			}
			if pub.publish && format == fitsFormat {
				return fmt.Errorf("--publish stores html, md and csv: write --format %s to a file instead", fitsFormat)
			}
			if pub.publish && cluster.artifactServer == "" {
				rd, err := pub.reader(cluster)
				if err != nil {
					return err
				}
				cluster.reader = rd
			}
			src, err := cluster.resolveInputs(cmd.Context(), args)
			var runs []compare.Run
			if err == nil {
				runs, err = compare.Load(cmd.Context(), src)
			}
			if errors.Is(err, errNoneSucceeded) && matrix.Pools != "" {
				// A campaign's exit handler: every cell failed (each step
				// said why) or none ran (a bad matrix). Nothing to draw.
				fmt.Fprintf(cmd.ErrOrStderr(), "benchwright: no report: %v\n", err)
				return nil
			}
			if err != nil {
				return err
			}
			if pub.publish || format == "html" || format == "md" {
				// What the nodes did: their series beside the runs' samples.
				if err := compare.ReadMonitors(cmd.Context(), src, runs); err != nil {
					return err
				}
			}
			// Which runs shared a machine, or were disturbed on theirs.
			if err := compare.ReadBeside(cmd.Context(), src, runs); err != nil {
				return err
			}
			run, dims, err := baseline.parse()
			if err != nil {
				return err
			}
			if run != "" {
				if opts.Baseline, err = compare.Find(runs, run); err != nil {
					return err
				}
			}
			view, err := cluster.campaignCells(cmd.Context(), matrix)
			if err != nil {
				return err
			}
			if view.campaign == nil {
				// Stored runs of a campaign (its objects may be long gone):
				// their cells from the labels their summaries keep.
				if view.campaign, err = storedCampaign(cmd.Context(), src, runs); err != nil {
					return err
				}
			}
			if history && cluster.selector != "" {
				opts.Trends = cluster.trends(cmd.Context(), runs, cmd.ErrOrStderr())
			}
			// The dimensions --baseline names lead, then the campaign's.
			opts.Cells, opts.Campaign, opts.Lead = view.cells, view.campaign, append(baseline.lead(), view.lead...)
			// The campaign's baselines were checked with its matrix: one its
			// runs lack (every cell of it failed) is said in the report.
			// Those given here are checked now, and override it.
			if err := page.Baselines(runs, opts.Campaign, dims); err != nil {
				return fmt.Errorf("--baseline: %w", err)
			}
			opts.Baselines = map[string]string{}
			maps.Copy(opts.Baselines, view.baselines)
			maps.Copy(opts.Baselines, dims)
			rep, err := page.New(runs, opts)
			if err != nil {
				return err
			}
			if pub.publish {
				return pub.run(cmd, cluster, rep, out, format)
			}
			write := writerOf(rep, format)
			if out == "" || out == "-" {
				return write(cmd.OutOrStdout())
			}
			if err := writeFile(out, write); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "benchwright: wrote %s (%d run(s))\n", out, len(runs))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write (default: standard output)")
	cmd.Flags().StringVar(&format, "format", "", "html, md, csv or fits-csv (default: from the -o extension, else html)")
	cmd.Flags().StringVar(&opts.Title, "title", "", "the report's title")
	baseline.register(cmd)
	cmd.Flags().BoolVar(&opts.All, "all", false, "compare every metric, not only the headline ones")
	cmd.Flags().BoolVar(&history, "history", history, "with -l: each run's headline figures among the earlier runs of their configurations, from the manager's results database (a section \"Over time\")")
	registerRatioFlags(cmd, &opts.Ratio, &opts.MaxCV)
	cmd.Flags().StringVar(&matrix.Pools, "campaign-pools", "", "with -l "+benchv1.CampaignLabel+"=WORKFLOW: the campaign's pools parameter; with --campaign-benchmarks (and --campaign-tunings) the report lists the benchmarks of cells that never made them")
	cmd.Flags().StringVar(&matrix.Tunings, "campaign-tunings", "", "the campaign's tunings parameter (JSON)")
	cmd.Flags().StringVar(&matrix.Benchmarks, "campaign-benchmarks", "", "the campaign's benchmarks parameter (JSON)")
	cmd.Flags().StringVar(&matrix.Baselines, "campaign-baselines", "", `the campaign's baselines parameter (JSON, {"pool": "c2"}); --baseline DIMENSION=VALUE overrides it`)
	cluster.register(cmd)
	pub.register(cmd)
	_ = cmd.MarkFlagFilename("output", "html", "md", "markdown", "csv")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(append(slices.Clone(reportFormats), fitsFormat), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// reportFormats are the formats a report is written in, in the order
// --publish stores them.
var reportFormats = []string{"html", "md", "csv"}

// fitsFormat writes the report's fits (figures against a numeric label) as CSV.
const fitsFormat = "fits-csv"

// writerOf is rep's writer of format, one of reportFormats or fitsFormat.
func writerOf(rep *page.Report, format string) func(io.Writer) error {
	return map[string]func(io.Writer) error{"html": rep.HTML, "md": rep.Markdown, "csv": rep.CSV,
		fitsFormat: func(w io.Writer) error { return page.WriteFitsCSV(w, rep.Fits) }}[format]
}

// formatOf is the format a file name asks for.
func formatOf(name string) string {
	if strings.HasSuffix(strings.ToLower(name), ".fits.csv") {
		return fitsFormat
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown":
		return "md"
	case ".csv":
		return "csv"
	}
	return "html"
}

// writeFile writes path through a temporary file beside it, so a failed
// report leaves no half-written file.
func writeFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	err = tmp.Chmod(0o644)
	if err == nil {
		err = write(tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("writing %s: %w", path, err), os.Remove(tmp.Name()))
	}
	return nil
}
