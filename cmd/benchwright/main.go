// Command benchwright is the benchwright CLI: run a benchmark spec on this
// machine, and turn raw tool output into samples. Installed as
// kubectl-benchwright it is also a kubectl plugin.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	root := newRootCommand()
	if strings.HasPrefix(filepath.Base(os.Args[0]), "kubectl-") {
		// Run by kubectl as a plugin: usage lines say how it was called.
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl benchwright"}
	}
	cmd, err := root.ExecuteC()
	os.Exit(exitCode(os.Stderr, cmd, err))
}

// Command groups, in the order the help lists them.
const (
	groupLocal   = "local"
	groupResults = "results"
	groupPods    = "pods"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "benchwright",
		Short: "HPC benchmark campaigns on Kubernetes, and on this machine",
		Long: `benchwright runs storage (fio, dd), MPI (OSU, IMB, IOR) and network (fabtests,
iperf3) benchmarks described as Kubernetes resources, on this machine or, by
its operator, in a cluster; and turns the tools' output into comparable
samples, tables and reports.

  benchwright run -f examples/quickstart/fio.yaml   run a spec here, print the figures
  benchwright parse --tool fio out.json             a raw output's samples as NDJSON
  benchwright results benchwright-results/          the figures of the runs below a directory
  benchwright report -l benchwright.io/campaign=s0 -o report.html
                                                    a report of a campaign's benchmarks in the cluster

Only results, compare, report and history talk to a cluster, and only to read the
benchmarks given by name or selected with -l; they find it as kubectl does
(--kubeconfig, --context, -n). Copied or linked onto PATH as
kubectl-benchwright, benchwright is also a kubectl plugin:
kubectl benchwright results ...`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddGroup(
		&cobra.Group{ID: groupLocal, Title: "Benchmarks on this machine:"},
		&cobra.Group{ID: groupResults, Title: "Results, from files, artifact stores or the cluster:"},
		&cobra.Group{ID: groupPods, Title: "Run in the operator's pods:"},
	)
	for group, cmds := range map[string][]*cobra.Command{
		groupLocal:   {newRunCommand(), newParseCommand()},
		groupResults: {newResultsCommand(), newCompareCommand(), newReportCommand(), newHistoryCommand(), newIndexCommand(), newExportCommand()},
		groupPods:    {newStepsCommand(), newNetbenchCommand(), newNodefactsCommand(), newSampleCommand(), newCampaignCommand()},
	} {
		for _, c := range cmds {
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	root.AddCommand(newVersionCommand())
	markRunErrors(root)
	return root
}

// exitError ends the process with code. Without err the command has said
// why already (steps prints the failed step's trailer, netbench its report),
// and nothing more is printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit code %d", e.code)
}

func (e *exitError) Unwrap() error { return e.err }

// runError is an error a command returned once it ran: not one of how it was
// called (an unknown flag or command, a missing argument or required flag),
// which cobra finds before.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }

func (e *runError) Unwrap() error { return e.err }

// markRunErrors wraps the errors of c's and its subcommands' RunE in runError.
func markRunErrors(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := run(cmd, args); err != nil {
				return &runError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markRunErrors(sub)
	}
}

// exitCode prints err, the error cmd ended with, once on stderr, and returns
// the process's exit code: an exitError's code, else 1. An error in how the
// command was called also names its help.
func exitCode(stderr io.Writer, cmd *cobra.Command, err error) int {
	if err == nil {
		return 0
	}
	var exit *exitError
	if errors.As(err, &exit) {
		if exit.err != nil {
			fmt.Fprintln(stderr, "benchwright:", exit.err)
		}
		return exit.code
	}
	fmt.Fprintln(stderr, "benchwright:", err)
	var run *runError
	if !errors.As(err, &run) && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return 1
}
