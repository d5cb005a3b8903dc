// Command benchwright is the benchwright CLI: run a benchmark spec on this
// machine, and turn raw tool output into samples. Installed as
// kubectl-benchwright it is also a kubectl plugin.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "benchwright:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "benchwright",
		Short: "HPC benchmark campaigns on Kubernetes, and on this machine",
		Long: `benchwright runs storage (fio, dd) and MPI (OSU, IMB, IOR) benchmarks described
as Kubernetes resources, and turns the tools' output into comparable samples.

  benchwright run -f examples/quickstart/fio.yaml   run a spec here, print the figures
  benchwright parse --tool fio out.json             a raw output's samples as NDJSON`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCommand(), newParseCommand(), newStepsCommand(), newNetbenchCommand())
	root.AddCommand(newResultsCommand())
	root.AddCommand(newCompareCommand())
	root.AddCommand(newReportCommand())
	root.AddCommand(newVersionCommand())
	return root
}
