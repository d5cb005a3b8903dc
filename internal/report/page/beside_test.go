package page

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/interference"
	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// sharedMachine is the machine beneath both nodes of the real cluster.
var sharedMachine = &nodefacts.Facts{MachineID: "4c4c4544-0042", MachineIDSource: nodefacts.MachineFromDMI, BootID: "0f3c6a7e-91b2"}

// besideStart is when the stored runs' first repetition starts.
var besideStart = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// storedCell is a campaign cell's run as the manager stores it: fio's
// write IOPS over three repetitions of 10 s each starting at starts (in
// seconds after besideStart), on a node of facts' machine (nil: a run
// stored before nodes recorded their machine and windows), its sampler's
// series seeing the run's own pod use one core of two and the machine
// others as busy (cores) during each repetition.
type storedCell struct {
	pool   string
	starts [3]int
	facts  *nodefacts.Facts
	others [3]float64
}

// name is the cell's benchmark.
func (c storedCell) name() string { return "wf-" + c.pool + "-none-fio" }

// write stores the cell's run under dir: samples.ndjson, nodes.json and
// monitor/<rep>/fio-0.json.
func (c storedCell) write(t *testing.T, dir string) {
	t.Helper()
	run := filepath.Join(dir, c.name())
	node := results.NodeInfo{Hostname: c.pool + "-node", MachineType: c.pool, Facts: c.facts}
	var samples []results.Sample
	for rep, start := range c.starts {
		from := besideStart.Add(time.Duration(start) * time.Second)
		node.Windows = append(node.Windows, results.Window{Repetition: rep, Start: from, End: from.Add(10 * time.Second)})
		s := sample(c.name(), c.pool, "randwrite-4k", "write_iops", "IOPS", "", rep, 50000*(1+float64(rep)/100))
		s.Timestamp = from
		samples = append(samples, s)
		writeFile(t, filepath.Join(run, "monitor", strconv.Itoa(rep), "fio-0.json"), recordJSON(t, cpuRecord(node.Hostname, from, c.others[rep])))
	}
	writeSamples(t, filepath.Join(run, source.SamplesFile), samples)
	if c.facts != nil {
		data, err := json.Marshal([]results.NodeInfo{node})
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(run, source.NodesFile), data)
	}
}

// cpuRecord is a pod's series on node of two cores over 10 s from start:
// the pod uses one core, others use others cores beside it.
func cpuRecord(node string, start time.Time, others float64) sampler.Record {
	h := sampler.Header{V: sampler.Version, Start: start.UnixMilli(), Interval: 1, Budget: sampler.DefaultBudget,
		Fields: map[string][]string{"cpu": sampler.CPUFields, "cores": sampler.CoreFields, "mem": sampler.MemFields,
			"psi": sampler.PSIFields, "disk": sampler.DiskFields, "net": sampler.NetFields, "pod": sampler.PodFields}}
	busy := (1 + others) / 2 * 100 // percent of the two cores
	var pts []sampler.Point
	for i := 1; i <= 10; i++ {
		pts = append(pts, sampler.Point{T: start.UnixMilli() + int64(i)*1000, Dt: 1,
			CPU:   []float64{busy, 0, 0, 0, 0, 0, 0, 100 - busy},
			Cores: [][]float64{{busy, 0, 0, 0, 0, 0, 0}, {busy, 0, 0, 0, 0, 0, 0}},
			Pod:   []float64{100, 50, 3}})
	}
	return sampler.Record{Pod: "fio-0", Node: node, Series: sampler.Series{Header: h, Points: pts}}
}

// besideReport is the report of the stored cells, a campaign of their pools
// (its baseline the first) with one tuning and one benchmark, in html, md
// and csv.
func besideReport(t *testing.T, cells ...storedCell) (runs []compare.Run, html, md, csv string) {
	t.Helper()
	dir := t.TempDir()
	c := &compare.Campaign{Places: map[string]map[string]string{}}
	var pools []string
	var listed []compare.Cell
	for _, cell := range cells {
		cell.write(t, dir)
		pools = append(pools, cell.pool)
		c.Places[cell.name()] = map[string]string{compare.DimPool: cell.pool, compare.DimTuning: "none", compare.DimBenchmark: "fio"}
		listed = append(listed, compare.Cell{Pool: cell.pool, Tuning: "none", Benchmark: "fio", Name: cell.name(), Kind: "StorageBenchmark", State: "Succeeded"})
	}
	c.Dimensions = []compare.Dimension{{Name: compare.DimPool, Values: pools}, {Name: compare.DimTuning, Values: []string{"none"}}, {Name: compare.DimBenchmark, Values: []string{"fio"}}}
	ctx := context.Background()
	src := source.Files{dir}
	runs, err := compare.Load(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := compare.ReadBeside(ctx, src, runs); err != nil {
		t.Fatal(err)
	}
	rep, err := New(runs, Options{Campaign: c, Cells: listed})
	if err != nil {
		t.Fatal(err)
	}
	var h, m, v bytes.Buffer
	for _, w := range []struct {
		write func(*bytes.Buffer) error
		out   *bytes.Buffer
	}{{func(b *bytes.Buffer) error { return rep.HTML(b) }, &h}, {func(b *bytes.Buffer) error { return rep.Markdown(b) }, &m}, {func(b *bytes.Buffer) error { return rep.CSV(b) }, &v}} {
		if err := w.write(w.out); err != nil {
			t.Fatal(err)
		}
	}
	keep(t, strings.ReplaceAll(t.Name(), "/", "-")+".html", h.Bytes())
	return runs, h.String(), m.String(), v.String()
}

// The campaign: two "machine types" on two nodes of one machine,
// their cells at once. Each is marked, in the Cells table with the cell it
// ran beside, beside the comparison's ratio with the legend in its note,
// and in the CSV's beside column.
func TestBesideOverlappingCells(t *testing.T) {
	runs, html, md, csv := besideReport(t,
		storedCell{pool: "e2", starts: [3]int{0, 20, 40}, facts: sharedMachine},
		storedCell{pool: "n2d", starts: [3]int{5, 25, 45}, facts: sharedMachine})
	for _, r := range runs {
		if want := []int{0, 1, 2}; !slices.Equal(r.Beside.Overlapped, want) || len(r.Beside.Disturbed) != 0 {
			t.Errorf("%s: %+v, want repetitions %v overlapped and none disturbed", r.Name, r.Beside, want)
		}
	}
	for name, out := range map[string]string{"html": unescaped(html), "md": md} {
		for _, want := range []string{"beside other runs", "‡ at the same time as wf-n2d-none-fio on its machine (repetitions 0, 1, 2)",
			"‡ at the same time as wf-e2-none-fio", "‡ marks a ratio whose run or baseline ran while another run ran on the same machine", "parallelism: 1"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if !strings.Contains(out, "1.00x ~ p=1.00; no change ‡") {
			t.Errorf("%s: the ratio is not marked ‡", name)
		}
	}
	if !strings.Contains(csv, ",beside\n") || !strings.Contains(csv, ",shared\n") {
		t.Errorf("the CSV has no beside column saying shared:\n%s", csv)
	}
}

// Cells run one at a time on one machine, and runs stored before nodes
// recorded their machine, are marked nowhere.
func TestBesideNoneAlone(t *testing.T) {
	for name, cells := range map[string][]storedCell{
		"one at a time": {{pool: "e2", starts: [3]int{0, 20, 40}, facts: sharedMachine}, {pool: "n2d", starts: [3]int{60, 80, 100}, facts: sharedMachine}},
		"stored before": {{pool: "e2", starts: [3]int{0, 20, 40}}, {pool: "n2d", starts: [3]int{5, 25, 45}}},
	} {
		t.Run(name, func(t *testing.T) {
			runs, html, md, csv := besideReport(t, cells...)
			for _, r := range runs {
				if r.Beside.Marked() {
					t.Errorf("%s marked: %+v", r.Name, r.Beside)
				}
			}
			for out, text := range map[string]string{"html": html, "md": md, "csv": csv} {
				for _, mark := range []string{"‡", "†", "beside"} {
					if strings.Contains(text, mark) {
						t.Errorf("%s has %q", out, mark)
					}
				}
			}
		})
	}
}

// A repetition during which others used half a core of the run's machine
// is disturbed: the Cells table says which and how much, its ratios are
// marked †.
func TestBesideDisturbedRepetition(t *testing.T) {
	runs, html, md, csv := besideReport(t,
		storedCell{pool: "e2", starts: [3]int{0, 20, 40}, facts: sharedMachine, others: [3]float64{0.02, 0.5, 0}},
		storedCell{pool: "n2d", starts: [3]int{60, 80, 100}, facts: sharedMachine})
	if b := runs[0].Beside; !slices.Equal(b.Disturbed, []int{1}) || len(b.Overlapped) != 0 || runs[1].Beside.Marked() {
		t.Errorf("marks %+v, %+v: want e2's repetition 1 disturbed alone", b, runs[1].Beside)
	}
	for name, out := range map[string]string{"html": unescaped(html), "md": md} {
		for _, want := range []string{"† disturbed: others used up to 0.5 of a core of its machine's CPU (repetition 1)",
			"† one during a repetition of which processes other than the run's own used more than 0.1 of a core"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(out, "‡") || !strings.Contains(out, "1.00x ~ p=1.00; no change †") {
			t.Errorf("%s: the ratio is not marked † alone", name)
		}
	}
	if !strings.Contains(csv, ",disturbed\n") {
		t.Errorf("the CSV's beside column does not say disturbed:\n%s", csv)
	}
}

// unescaped is an HTML page with its apostrophes as written.
func unescaped(html string) string { return strings.ReplaceAll(html, "&#39;", "'") }

// The comparison with one baseline (benchwright compare) marks the ratios
// whose run or baseline was not alone, says why in its note, and has the
// CSV's beside column; unmarked runs keep the plain table.
func TestBesideComparisonWithABaseline(t *testing.T) {
	runs := group(t, storageSamples())
	rows, err := compare.With(runs, 0, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if err := WriteCompareMarkdown(&plain, runs, 0, rows); err != nil {
		t.Fatal(err)
	}
	runs[0].Beside = interference.Mark{OverlappedWith: []string{"x"}, Overlapped: []int{1}}
	var md, csv bytes.Buffer
	if err := WriteCompareMarkdown(&md, runs, 0, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareCSV(&csv, runs, 0, rows); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "‡") || !strings.Contains(md.String(), "‡ marks a ratio") || strings.Count(md.String(), " ‡ |") != len(rows) {
		t.Errorf("marks: unmarked\n%s\nmarked\n%s", plain.String(), md.String())
	}
	if !strings.Contains(csv.String(), ",beside\n") || strings.Count(csv.String(), ",shared\n") != 2*len(rows) {
		t.Errorf("CSV:\n%s", csv.String())
	}
}

// A ladder's step is marked by its run and the step before it: a disturbed
// compact step marks compact against default and smt-off against compact,
// not smt-off against default.
func TestBesideLadderSteps(t *testing.T) {
	b := newCampaign([]string{"default", "compact", "smt-off"}, []string{"none"}, []string{"osu"})
	settings := map[string]map[string]string{
		"default": {results.LabelThreadsPerCore: "2"},
		"compact": {results.LabelPlacement: "COMPACT", results.LabelThreadsPerCore: "2"},
		"smt-off": {results.LabelPlacement: "COMPACT", results.LabelThreadsPerCore: "1"},
	}
	for pool, lat := range map[string]float64{"default": 30, "compact": 25, "smt-off": 20} {
		b.cell(pool, "none", "osu", "c2-standard-60", "osu_latency", "latency", "us", map[string]float64{"8": lat}, settings[pool])
	}
	runs, c := b.runs(t)
	for i := range runs {
		if runs[i].Benchmark == "wf-compact-none-osu" {
			runs[i].Beside = interference.Mark{Disturbed: []int{0}, MaxOthers: 0.4, Watched: true}
		}
	}
	rep, _ := newReport(t, runs, Options{Campaign: c})
	g, _, _ := alongGrid(alongOf(t, rep, compare.DimPool))
	cols := map[string]int{}
	for i, h := range g.header {
		cols[h] = i
	}
	got := g.rows[0]
	for col, marked := range map[string]bool{"compact speedup vs default": true, "smt-off speedup vs default": false,
		"compact speedup vs default (step before)": true, "smt-off speedup vs compact (step before)": true} {
		i, ok := cols[col]
		if !ok {
			t.Fatalf("no column %q in %q", col, g.header)
		}
		if strings.HasSuffix(got[i], " †") != marked {
			t.Errorf("%s = %q, marked † %v", col, got[i], marked)
		}
	}
}
