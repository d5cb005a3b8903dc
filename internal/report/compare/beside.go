package compare

import (
	"context"
	"slices"

	"github.com/benchwright/benchwright/internal/interference"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// ReadBeside finds, from each run's nodes.json and the sampler's series
// beside its samples, the machines beneath its nodes (Machines) and which
// runs were not alone on their machine (interference.Marks,
// DefaultThreshold): each run's Beside, its OverlappedWith naming the
// report's runs. Runs stored without machines or
// windows (before node facts recorded them) get no mark, nor do the runs of
// a source that keeps no nodes.json. Files that cannot be read count for
// nothing; the error is only ctx's.
func ReadBeside(ctx context.Context, src source.Source, runs []Run) error {
	ns, ok := src.(source.NodesSource)
	if !ok {
		return nil
	}
	inputs, byInput := runInputs(runs)
	nodes := map[string][]results.NodeInfo{}
	_ = ns.RunNodes(ctx, inputs, func(input string, n []results.NodeInfo) {
		if _, seen := nodes[input]; !seen {
			nodes[input] = n
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, in := range inputs {
		for _, i := range byInput[in] {
			runs[i].Machines = append(runs[i].Machines, machinesOf(nodes[in])...)
		}
	}
	var windows []interference.Window
	var known []string
	for _, in := range inputs {
		if w := interference.WindowsOf(in, nodes[in]); len(w) > 0 {
			windows = append(windows, w...)
			known = append(known, in)
		}
	}
	if len(known) == 0 {
		return nil
	}
	series, err := podSeries(ctx, src, known, nodes)
	if err != nil {
		return err
	}
	marks := interference.Marks(interference.Overlaps(windows), interference.Shares(series, interference.DefaultThreshold))
	for in, m := range marks {
		var with []string
		for _, other := range m.OverlappedWith {
			with = append(with, inputName(runs, byInput[other]))
		}
		m.OverlappedWith = slices.Compact(slices.Sorted(slices.Values(with)))
		for _, i := range byInput[in] {
			if !runs[i].Beside.Marked() && !runs[i].Beside.Watched {
				runs[i].Beside = m
			}
		}
	}
	return nil
}

// podSeries are the sampler's series of the inputs' runs, each on its
// node's machine within the node's window of its repetition.
func podSeries(ctx context.Context, src source.Source, inputs []string, nodes map[string][]results.NodeInfo) ([]interference.PodSeries, error) {
	ms, ok := src.(source.MonitorSource)
	if !ok {
		return nil, nil
	}
	var out []interference.PodSeries
	_ = ms.MonitorFiles(ctx, inputs, func(input string, files []source.MonitorFile, err error) {
		if err != nil {
			return
		}
		for _, f := range files {
			rep, ok := monitorName(f.Name)
			if !ok || ctx.Err() != nil {
				continue
			}
			rec, err := readRecord(ctx, f)
			if err != nil {
				continue
			}
			if s, ok := interference.SeriesOf(interference.Rep{Run: input, Repetition: rep}, rec, nodes[input]); ok {
				out = append(out, s)
			}
		}
	})
	return out, ctx.Err()
}

// inputName names the run of an input: its one run's name, or the
// benchmark of its several (a NetworkBenchmark's pairs).
func inputName(runs []Run, idx []int) string {
	switch {
	case len(idx) == 0:
		return ""
	case len(idx) == 1:
		return runs[idx[0]].Name
	}
	return runs[idx[0]].Benchmark
}

// besideOf are the marks of runs by index, the zero Mark where idx is -1.
func besideOf(runs []Run, idx []int) []interference.Mark {
	out := make([]interference.Mark, len(idx))
	for v, i := range idx {
		if i >= 0 {
			out[v] = runs[i].Beside
		}
	}
	return out
}
