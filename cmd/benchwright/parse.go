package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/fabtests"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/iperf3"
	"github.com/benchwright/benchwright/internal/mpi/imb"
	"github.com/benchwright/benchwright/internal/mpi/ior"
	"github.com/benchwright/benchwright/internal/mpi/osu"
	"github.com/benchwright/benchwright/internal/results"
)

// parsers turn a raw output file into samples.
var parsers = map[string]func(data []byte, test, direction string) ([]results.Sample, error){
	"fio": func(data []byte, _, _ string) ([]results.Sample, error) { return fio.ParseJSON(data) },
	"dd": func(data []byte, test, direction string) ([]results.Sample, error) {
		runs, err := fio.ParseDD(data)
		if err != nil {
			return nil, err
		}
		var out []results.Sample
		for i, r := range runs {
			for _, s := range fio.DDSamples(r, test, direction) {
				s.Repetition = i
				out = append(out, s)
			}
		}
		return out, nil
	},
	"osu": func(data []byte, _, _ string) ([]results.Sample, error) { return osu.Parse(data) },
	"imb": func(data []byte, _, _ string) ([]results.Sample, error) { return imb.Parse(data) },
	"ior": func(data []byte, _, _ string) ([]results.Sample, error) { return ior.Parse(data) },
	"fabtests": func(data []byte, test, _ string) ([]results.Sample, error) {
		return fabtests.Parse(data, test)
	},
	"iperf3": func(data []byte, test, _ string) ([]results.Sample, error) { return iperf3.Parse(data, test) },
}

func newParseCommand() *cobra.Command {
	var tool, test, direction string
	var processes int32
	cmd := &cobra.Command{
		Use:   "parse --tool TOOL FILE",
		Short: "Print the samples of a raw tool output as NDJSON",
		Long: `Parse FILE, the raw output of a benchmark tool run anywhere, into benchwright's
samples (one JSON object per line), so runs made outside benchwright can be
compared and reported with runs made by it.

Tools: fio (JSON or JSON+ output of fio 2.x/3.x), dd (GNU or BSD summary
lines; with --processes N the log of a dd test of N processes at once),
osu (OSU micro-benchmarks 5.x-7.x; the test is read from the output's
header), imb (IMB-MPI1 3.x-2021.x, every benchmark in the log), ior (IOR 3.x/4.x
text or JSON summary, or the file of -O summaryFile=), fabtests (libfabric's
fi_msg_bw, fi_rma_bw, fi_rdm_tagged_bw, fi_*pingpong, ...: either side's table;
name the program with --test), iperf3 (its -J JSON; several runs in a row are
repetitions).`,
		Example: `  fio --output-format=json job.fio > out.json && benchwright parse --tool fio out.json
  dd if=/dev/zero of=f bs=1M count=1000 oflag=direct 2> dd.log; benchwright parse --tool dd --test write-direct --direction write dd.log
  mpirun -np 2 osu_latency > lat.txt && benchwright parse --tool osu lat.txt
  fi_msg_bw -p tcp -S all SERVER > bw.txt && benchwright parse --tool fabtests --test fi_msg_bw bw.txt
  iperf3 -c SERVER -J -P 4 > tcp.json && benchwright parse --tool iperf3 --test tcp-4-streams tcp.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			parse, ok := parsers[tool]
			if !ok {
				return fmt.Errorf("unknown --tool %q (supported: %s)", tool, strings.Join(toolNames(), ", "))
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			if test == "" {
				test = tool
			}
			if processes > 1 && tool != "dd" {
				return fmt.Errorf("--processes is for dd's multi-process output, not %s", tool)
			}
			if processes > 1 {
				parse = func(data []byte, test, direction string) ([]results.Sample, error) {
					return fio.DDTestSamples(benchv1.DDTest{Name: test, Operation: benchv1.DDOperation(direction), Processes: processes}, data)
				}
			}
			samples, err := parse(data, test, direction)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			return results.WriteNDJSON(cmd.OutOrStdout(), samples)
		},
	}
	cmd.Flags().StringVar(&tool, "tool", "", "the tool that wrote FILE: "+strings.Join(toolNames(), ", "))
	cmd.Flags().StringVar(&test, "test", "", "test name for tools whose output does not name one (dd, fabtests, iperf3)")
	cmd.Flags().StringVar(&direction, "direction", "", "dd only: write or read, to name the metrics write_bw / read_bw")
	cmd.Flags().Int32Var(&processes, "processes", 1, "dd only: FILE is the log of a test of this many processes at once (benchwright's raw log of one such dd step): the aggregate and each process's figures")
	_ = cmd.MarkFlagRequired("tool")
	_ = cmd.RegisterFlagCompletionFunc("tool", cobra.FixedCompletions(toolNames(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// toolNames lists the tools parse knows, sorted.
func toolNames() []string {
	names := make([]string, 0, len(parsers))
	for name := range parsers {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
