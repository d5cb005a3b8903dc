package page

import (
	"slices"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// nodeColumn is a column of a node table: a metric's median; share prints
// it as a percentage.
type nodeColumn struct {
	header, metric string
	share          bool
}

// The node tables' columns: the node's CPU and the pod's own; each disk;
// each interface.
var (
	cpuColumns = []nodeColumn{
		{"CPU %", sampler.MetricCPUUtil, true}, {"CPU max %", sampler.MetricCPUUtilMax, true},
		{"busiest core %", sampler.MetricBusiestCore, true}, {"busiest core max %", sampler.MetricBusiestCoreMax, true},
		{"iowait %", sampler.MetricIowait, true}, {"steal %", sampler.MetricSteal, true},
		{"pod CPU (% of a core)", sampler.MetricPodCPU, true}, {"pod RSS max (MiB)", sampler.MetricPodRSSMax, false},
	}
	diskColumns = []nodeColumn{
		{"util %", sampler.MetricDiskUtil, true}, {"util max %", sampler.MetricDiskUtilMax, true},
		{"IOPS", sampler.MetricDiskIOPS, false}, {"MB/s", sampler.MetricDiskMBps, false}, {"queue", sampler.MetricDiskQueue, false},
	}
	netColumns = []nodeColumn{{"MB/s", sampler.MetricNetMBps, false}, {"MB/s max", sampler.MetricNetMBpsMax, false}}
)

// nodeTable is a grid of a run's node summaries: a row per test, side,
// node (when the run has several) and key label's value (device,
// interface; "" for none), a column per metric of cols that some row has,
// and n, the repetitions; marked are the cells at their limit (see
// AtLimit). Nil when no summary has cols' metrics.
func nodeTable(r compare.Run, cols []nodeColumn, key string) (g *grid, marked [][]bool) {
	nodes, sides := map[string]bool{}, false
	for _, s := range r.Nodes {
		nodes[s.Labels[results.LabelNode]] = true
		sides = sides || s.Labels[sampler.LabelSide] != ""
	}
	keyCols := []string{"test"}
	keyLabels := []string{""}
	if sides {
		keyCols, keyLabels = append(keyCols, "side"), append(keyLabels, sampler.LabelSide)
	}
	if len(nodes) > 1 {
		keyCols, keyLabels = append(keyCols, "node"), append(keyLabels, results.LabelNode)
	}
	if key != "" {
		keyCols, keyLabels = append(keyCols, map[string]string{sampler.LabelDevice: "device", sampler.LabelIface: "interface"}[key]), append(keyLabels, key)
	}
	type row struct {
		keys  []string
		cells map[string]results.Summary
		n     int
	}
	var rows []*row
	index := map[string]*row{}
	for _, s := range r.Nodes {
		if !slices.ContainsFunc(cols, func(c nodeColumn) bool { return c.metric == s.Metric }) || (key != "" && s.Labels[key] == "") {
			continue
		}
		keys := []string{s.Test}
		for _, l := range keyLabels[1:] {
			keys = append(keys, s.Labels[l])
		}
		k := strings.Join(keys, "\x00")
		rw, ok := index[k]
		if !ok {
			rw = &row{keys: keys, cells: map[string]results.Summary{}}
			index[k] = rw
			rows = append(rows, rw)
		}
		rw.cells[s.Metric] = s
		rw.n = max(rw.n, s.Stats.N)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	var shown []nodeColumn
	for _, c := range cols {
		if slices.ContainsFunc(rows, func(rw *row) bool { _, ok := rw.cells[c.metric]; return ok }) {
			shown = append(shown, c)
		}
	}
	g = &grid{header: keyCols}
	for range keyCols {
		g.right = append(g.right, false)
	}
	for _, c := range shown {
		g.header, g.right = append(g.header, c.header), append(g.right, true)
	}
	g.header, g.right = append(g.header, "n"), append(g.right, true)
	for _, rw := range rows {
		cells := slices.Clone(rw.keys)
		marks := make([]bool, len(g.header))
		for i, c := range shown {
			s, ok := rw.cells[c.metric]
			switch {
			case !ok:
				cells = append(cells, "-")
			case c.share:
				cells = append(cells, strconv.FormatFloat(s.Stats.Median, 'f', 1, 64))
			default:
				cells = append(cells, formatValue(s.Stats.Median))
			}
			marks[len(keyCols)+i] = ok && compare.AtLimit(s)
		}
		g.add(append(cells, strconv.Itoa(rw.n))...)
		marked = append(marked, marks)
	}
	return g, marked
}

// nodesNote says how to read the node tables.
const nodesNote = "What each run's nodes did during each test, as the sampler sidecar read it from /proc: means over the test (max: the highest interval), medians over the counted repetitions; n is how many. CPU is the node's utilisation (neither idle nor iowait), the busiest core the highest of any core in each interval; the pod's CPU is in percent of one core. These are not the tool's figures: they are in no plot, comparison or fit."
