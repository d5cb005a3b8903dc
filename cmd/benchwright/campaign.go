package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/benchwright/benchwright/internal/campaign"
)

// campaignFlags are what every campaign step is given: its Workflow and the
// matrix, as the Workflow's parameters.
type campaignFlags struct {
	namespace, workflow, uid string
	params                   campaign.Params
	terminationLog           string
}

func (f *campaignFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&f.namespace, "namespace", "n", "", "the Workflow's namespace: {{workflow.namespace}}")
	fl.StringVar(&f.workflow, "workflow", "", "the Workflow's name: {{workflow.name}}")
	fl.StringVar(&f.uid, "workflow-uid", "", "the Workflow's UID: {{workflow.uid}}")
	fl.StringVar(&f.params.Pools, "pools", "", "the pools parameter (JSON)")
	fl.StringVar(&f.params.PoolDefaults, "pool-defaults", "", "the poolDefaults parameter (JSON)")
	fl.StringVar(&f.params.Tunings, "tunings", "", `the tunings parameter (JSON; default [{"name": "none"}])`)
	fl.StringVar(&f.params.Benchmarks, "benchmarks", "", "the benchmarks parameter (JSON)")
	fl.StringVar(&f.params.SharePool, "share-pool", "", "the sharePool parameter: true or false")
	fl.StringVar(&f.params.Baselines, "baselines", "", `the baselines parameter (JSON): the report's baseline per dimension, e.g. {"pool": "c2"}`)
	fl.StringVar(&f.terminationLog, "termination-log", "", "also write a failure's message to this file, the container's terminationMessagePath, which Argo shows as the step's message")
	for _, name := range []string{"namespace", "workflow", "workflow-uid"} {
		_ = cmd.MarkFlagRequired(name)
	}
}

// setup parses the matrix and connects to the cluster (in a pod: as its
// ServiceAccount).
func (f *campaignFlags) setup() (*campaign.Matrix, campaign.Workflow, client.Client, error) {
	m, err := campaign.Parse(f.params)
	if err != nil {
		return nil, f.workflowOf(), nil, err
	}
	c, err := clusterClient()
	return m, f.workflowOf(), c, err
}

func (f *campaignFlags) workflowOf() campaign.Workflow {
	return campaign.Workflow{Namespace: f.namespace, Name: f.workflow, UID: types.UID(f.uid)}
}

// clusterClient connects as kubectl would, or as the pod's ServiceAccount.
func clusterClient() (client.Client, error) {
	cfg, err := ctrlconfig.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster: %w", err)
	}
	return client.New(cfg, client.Options{})
}

// fail writes err, bounded, to the termination log (Argo shows it as the
// step's message) and returns it.
func (f *campaignFlags) fail(err error) error {
	if err != nil && f.terminationLog != "" {
		msg := err.Error()
		if len(msg) > 3900 { // the kubelet keeps 4096 bytes
			msg = msg[:3900] + " ..."
		}
		_ = os.WriteFile(f.terminationLog, []byte(msg), 0o644)
	}
	return err
}

func newCampaignCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "campaign check|cell|release",
		Short: "Run a step of a campaign (the Argo WorkflowTemplate's steps)",
		Long: `The steps of the chart's campaign WorkflowTemplate, in the manager's image, as
the campaign's ServiceAccount. Each gets the Workflow (name, UID, namespace) and
the matrix (the Workflow's parameters pools, poolDefaults, tunings, benchmarks,
sharePool, baselines) as flags:

  check     every object the cells would create passes a server-side dry run
  cell      one cell: its pool Ready, its tuning Tuned, its benchmarks run, then
            the tuning and pool deleted
  release   a shared pool (--pool), or every pool and tuning of the Workflow (--all)`,
	}
	cmd.AddCommand(newCampaignCheckCommand(), newCampaignCellCommand(), newCampaignReleaseCommand())
	return cmd
}

func newCampaignCheckCommand() *cobra.Command {
	var f campaignFlags
	var outputs string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check a campaign's parameters: every object passes a server-side dry run",
		Long: `Check a campaign's parameters: they parse, every name fits, and every pool,
tuning and benchmark a cell would create passes a server-side dry run (as the
campaign's ServiceAccount: its admission policy too). Every fault is named with
its parameter and item, in the API server's own words.

With --outputs-dir it writes there what the Workflow's next steps fan out over:
pools.json and tunings.json (JSON lists of names) and sharePool (true or false).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, wf, c, err := f.setup()
			if err != nil {
				return f.fail(err)
			}
			if err := campaign.Check(cmd.Context(), c, m, wf); err != nil {
				return f.fail(err)
			}
			if outputs != "" {
				if err := writeCheckOutputs(outputs, m); err != nil {
					return f.fail(err)
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d pool(s) x %d tuning(s) = %d cell(s), %d benchmark(s) each: every object passes a dry run\n",
				len(m.Pools), len(m.Tunings), len(m.Cells()), len(m.Benchmarks))
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&outputs, "outputs-dir", "", "write the pools' and tunings' names, and sharePool, here (the step's outputs)")
	return cmd
}

// writeCheckOutputs writes the names the Workflow fans out over.
func writeCheckOutputs(dir string, m *campaign.Matrix) error {
	var pools, tunings []string
	for _, p := range m.Pools {
		pools = append(pools, p.Name)
	}
	for _, t := range m.Tunings {
		tunings = append(tunings, t.Name)
	}
	files := map[string]any{"pools.json": pools, "tunings.json": tunings, "sharePool": m.SharePool}
	for name, v := range files {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func newCampaignCellCommand() *cobra.Command {
	var f campaignFlags
	var pool, tuning, outcome string
	var keepPool bool
	r := campaign.Runner{Poll: time.Second}
	cmd := &cobra.Command{
		Use:   "cell --pool NAME --tuning NAME",
		Short: "Run one cell of a campaign",
		Long: `Run one cell of a campaign: create its BenchmarkPool and wait for it to be
Ready, create its TuningProfile and wait for every node to read it back, create
its benchmarks (the pool runs them one at a time) and wait for each to end; then
delete the tuning (its nodes restored) and, unless the pool's tunings share it,
the pool. The release happens however the cell ended, and on SIGTERM (the
step's deadline, a deleted Workflow).

Run again (argo retry), a cell keeps its benchmarks that Succeeded and runs
again those that Failed. It exits 1 when a benchmark failed, naming each.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			m, wf, c, err := f.setup()
			if err != nil {
				return f.fail(err)
			}
			cell, err := m.Cell(pool, tuning)
			if err != nil {
				return f.fail(err)
			}
			r.Client, r.Matrix, r.Workflow, r.Log = c, m, wf, cmd.OutOrStdout()
			out, t, runErr := r.RunCell(ctx, cell, keepPool || m.SharePool)
			printOutcomes(cmd, cell, out, t)
			if outcome != "" {
				if err := writeOutcome(outcome, cell, out, t, runErr); err != nil {
					runErr = errors.Join(runErr, err)
				}
			}
			return f.fail(runErr)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&pool, "pool", "", "the cell's pool (an entry of pools)")
	cmd.Flags().StringVar(&tuning, "tuning", campaign.UntunedName, "the cell's tuning (an entry of tunings)")
	cmd.Flags().BoolVar(&keepPool, "keep-pool", false, "leave the pool for the next tuning (sharePool does so)")
	cmd.Flags().DurationVar(&r.PoolTimeout, "pool-timeout", time.Hour, "how long the pool may take to be Ready, and the tuning Tuned")
	cmd.Flags().DurationVar(&r.ReleaseTimeout, "release-timeout", 15*time.Minute, "how long the tuning and pool may take to be gone")
	cmd.Flags().StringVar(&outcome, "outcome-file", "", "write the cell's outcome (JSON) here: an output parameter of the step")
	_ = cmd.MarkFlagRequired("pool")
	return cmd
}

// printOutcomes prints the cell's benchmarks and where its time went.
func printOutcomes(cmd *cobra.Command, cell campaign.Cell, out []campaign.Outcome, t campaign.Timings) {
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "cell %s\n", cell)
	fmt.Fprintln(w, "BENCHMARK\tKIND\tSTATE\tRESULT")
	for _, o := range out {
		if o.Name == "" {
			continue
		}
		result := o.Headline
		if o.State != "Succeeded" {
			result = o.Reason + ": " + o.Message
		}
		if o.Kept {
			result += " (kept from an earlier attempt)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", o.Name, o.Kind, o.State, result)
	}
	_ = w.Flush()
	fmt.Fprintf(cmd.OutOrStdout(), "time: pool %s, tuning %s, benchmarks %s, release %s\n",
		t.Pool.Round(100*time.Millisecond), t.Tuning.Round(100*time.Millisecond), t.Benchmarks.Round(100*time.Millisecond), t.Release.Round(100*time.Millisecond))
}

// writeOutcome writes the cell's outcome as JSON, for the step's output.
func writeOutcome(path string, cell campaign.Cell, out []campaign.Outcome, t campaign.Timings, runErr error) error {
	doc := map[string]any{
		"pool": cell.Pool.Name, "tuning": cell.Tuning.Name, "benchmarks": out,
		"seconds": map[string]float64{"pool": t.Pool.Seconds(), "tuning": t.Tuning.Seconds(), "benchmarks": t.Benchmarks.Seconds(), "release": t.Release.Seconds()},
	}
	if runErr != nil {
		doc["error"] = runErr.Error()
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func newCampaignReleaseCommand() *cobra.Command {
	var f campaignFlags
	var pool string
	var all bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "release --pool NAME | --all",
		Short: "Delete a shared pool, or every pool and tuning of the Workflow",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (pool == "") == !all {
				return errors.New("give --pool NAME (a shared pool) or --all (every pool and tuning of the Workflow)")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			if all {
				// The matrix is not needed (nor trusted: a bad one failed the check).
				c, err := clusterClient()
				if err != nil {
					return f.fail(err)
				}
				return f.fail(campaign.ReleaseAll(ctx, c, f.workflowOf(), cmd.OutOrStdout()))
			}
			m, wf, c, err := f.setup()
			if err != nil {
				return f.fail(err)
			}
			r := campaign.Runner{Client: c, Matrix: m, Workflow: wf, Log: cmd.OutOrStdout(), Poll: time.Second, ReleaseTimeout: timeout}
			return f.fail(r.ReleasePool(ctx, pool))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&pool, "pool", "", "the shared pool to delete (an entry of pools)")
	cmd.Flags().BoolVar(&all, "all", false, "delete every pool and tuning of the Workflow (its exit handler)")
	cmd.Flags().DurationVar(&timeout, "timeout", 15*time.Minute, "how long they may take to be gone")
	return cmd
}
