package page

import (
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/fabtests"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
)

// s2Samples are seed 002's NetworkBenchmark samples: a real fi_msg_bw table
// (made here over loopback) as every pair's figures, scaled per pair as a
// 2-socket, 4-chiplet node would show them, 3 repetitions, on 2 nodes.
func s2Samples(t *testing.T) []results.Sample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fabtests", "testdata", "real", "fi_msg_bw_tcp_1.17_client.txt"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := fabtests.Parse(data, "fi_msg_bw")
	if err != nil {
		t.Fatal(err)
	}
	type pair struct {
		server, client, scope string
		chiplet, socket       int
		factor                float64
	}
	pairs := []pair{
		{"n0", "n0", "intraSocket", 1, 0, 1.0},
		{"n0", "n0", "interSocket", 2, 1, 0.7},
		{"n0", "n0", "interSocket", 3, 1, 0.68},
		{"n0", "n1", "interNode", 0, 0, 0.35},
		{"n0", "n1", "interNode", 1, 0, 0.34},
		{"n0", "n1", "interNode", 2, 1, 0.3},
		{"n0", "n1", "interNode", 3, 1, 0.3},
		// The same chiplet pairs on the second node (pooled with the
		// first's), and chiplet 0 to itself: CPU 0 to CPU 1.
		{"n1", "n1", "intraSocket", 1, 0, 0.96},
		{"n1", "n1", "interSocket", 2, 1, 0.72},
		{"n0", "n0", "intraSocket", 0, 0, 1.2},
	}
	var out []results.Sample
	for _, p := range pairs {
		cpu := 8 * p.chiplet
		if p.chiplet == 0 && p.server == p.client {
			cpu = 1
		}
		name := p.server + ":c0 -> " + p.client + ":c" + strconv.Itoa(cpu)
		for rep := range 3 {
			for _, s := range table {
				s.Kind, s.Namespace, s.Benchmark, s.RunUID, s.Repetition = "NetworkBenchmark", "seeds", "s2-fabtests-chiplets", "uid-s2", rep
				s.Value *= p.factor * (1 + 0.03*float64(rep))
				labels := map[string]string{results.LabelMachineType: "c3-standard-176"}
				for k, v := range s.Labels {
					labels[k] = v
				}
				labels[netbench.LabelPair], labels[netbench.LabelScope] = name, p.scope
				labels[netbench.LabelServerChiplet], labels[netbench.LabelClientChiplet] = "0", strconv.Itoa(p.chiplet)
				labels[netbench.LabelServerSocket], labels[netbench.LabelClientSocket] = "0", strconv.Itoa(p.socket)
				s.Labels = labels
				out = append(out, s)
			}
		}
	}
	return out
}

// TestScenarioS2Fabtests is seed 002's NetworkBenchmark report: box plots of
// bandwidth per size, one per scope (the seed's figures a-i per test), a
// box per chiplet pair pooled over the nodes that ran it, chiplet 0 to
// itself included; a chiplet heatmap of peak bandwidth; and the pairs'
// peaks side by side (inter-node against intra-node), as a browser draws it.
func TestScenarioS2Fabtests(t *testing.T) {
	runs := group(t, s2Samples(t))
	if len(runs) != 10 {
		t.Fatalf("%d runs, want one per pair", len(runs))
	}
	if got := runs[3].Name; got != "s2-fabtests-chiplets n0:c0 -> n1:c0 interNode" {
		t.Errorf("run name %q", got)
	}
	_, plots, md := render(t, "s2", runs, Options{Title: "S2: chiplet to chiplet"})
	for _, want := range []struct {
		scope  string
		series []string
	}{
		{"intraSocket", []string{"chiplet 0 -> 0", "chiplet 0 -> 1"}},
		{"interSocket", []string{"chiplet 0 -> 2", "chiplet 0 -> 3"}},
		{"interNode", []string{"chiplet 0 -> 0", "chiplet 0 -> 1", "chiplet 0 -> 2", "chiplet 0 -> 3"}},
	} {
		box := findPlot(t, plots, figure.PlotBoxes, "fi_msg_bw: bandwidth, "+want.scope+", pooled over nodes")
		wantSeries(t, box, want.series...)
	}
	// Pooled: chiplet 0 -> 1 intra-socket has both nodes' 3 repetitions.
	var bw *compare.Figure
	for _, fig := range compare.Figures(runs) {
		if fig.Test == "fi_msg_bw" && fig.Metric == "bandwidth" {
			bw = fig
		}
	}
	if bw == nil {
		t.Fatal("no fi_msg_bw bandwidth figure")
	}
	if pooled := figure.PooledBoxes(bw, runs); len(pooled) != 3 || !strings.Contains(pooled[0].Caption, "up to 6") {
		t.Errorf("%d pooled box plots, the first captioned %q; want 3, of up to 6 repetitions (2 nodes x 3)", len(pooled), pooled[0].Caption)
	}
	heat := findPlot(t, plots, figure.PlotHeatmap, "fi_msg_bw: peak bandwidth between chiplets")
	for _, want := range []string{">chiplet 3<", ">chiplet 0, to the next node<"} {
		if !strings.Contains(heat.SVG, want) {
			t.Errorf("heatmap lacks %q", want)
		}
	}
	bars := findPlot(t, plots, figure.PlotBars, "peak bandwidth")
	if !strings.Contains(strings.Join(bars.Series, "|"), "interNode") || !strings.Contains(strings.Join(bars.Series, "|"), "intraSocket") {
		t.Errorf("peak bars do not set inter-node beside intra-node: %q", bars.Series)
	}
	if !strings.Contains(md, "n0:c0 -> n0:c8 intraSocket") {
		t.Errorf("the markdown report does not name the pairs:\n%.600s", md)
	}

	rep, err := New(runs, Options{Title: "S2 in a browser"})
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.HTML(f); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	img, shot := util.Screenshot(t, page)
	if inked, total := util.Inked(img); inked*100 < total*3 {
		t.Errorf("only %d of %d pixels drawn", inked, total)
	}
	// The heatmap alone, as a browser draws it: its fastest cell in the
	// darkest shade, with room around it.
	heatPage := filepath.Join(t.TempDir(), "heatmap.html")
	if err := os.WriteFile(heatPage, []byte("<!doctype html><html><body style=\"background:#fff\">"+heat.SVG+"</body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	heatImg, heatShot := util.Screenshot(t, heatPage)
	dark := 0
	for y := heatImg.Bounds().Min.Y; y < heatImg.Bounds().Max.Y; y++ {
		for x := heatImg.Bounds().Min.X; x < heatImg.Bounds().Max.X; x++ {
			if nearColor(rgba(heatImg.At(x, y)), figure.HeatColor(1)) {
				dark++
			}
		}
	}
	if dark < 100 {
		t.Errorf("the heatmap's fastest cell is not drawn (%d pixels of its colour)", dark)
	}
	keep(t, "s2-heatmap.png", mustRead(t, heatShot))
	keep(t, "s2-browser.png", mustRead(t, shot))
}

func rgba(c color.Color) color.RGBA { return color.RGBAModel.Convert(c).(color.RGBA) }

// Issue 44: seed 002 as a campaign (one pool and tuning; an OSU benchmark
// and the fabtests pairs) opens with its answer, the box plots per test and
// scope; its contents list a line per test, not one per plot; and the two
// benchmarks, which share no test, are not compared (no rows of "no
// osu-ccd0-ccd1 cell: succeeded").
func TestScenarioS2CampaignLeadsWithItsPlots(t *testing.T) {
	fab := s2Samples(t)
	var osu []results.Sample
	for _, s := range mpiSamples() {
		if s.Benchmark == "osu-on-node" {
			s.Benchmark = "osu-ccd0-ccd1"
			osu = append(osu, s)
		}
	}
	runs := group(t, fab, osu)
	c := &compare.Campaign{Dimensions: []compare.Dimension{{Name: compare.DimPool, Values: []string{"c3-spr"}},
		{Name: compare.DimTuning, Values: []string{"none"}}, {Name: compare.DimBenchmark, Values: []string{"osu-ccd0-ccd1", "fabtests"}}},
		Places: map[string]map[string]string{
			"osu-ccd0-ccd1":        {compare.DimPool: "c3-spr", compare.DimTuning: "none", compare.DimBenchmark: "osu-ccd0-ccd1"},
			"s2-fabtests-chiplets": {compare.DimPool: "c3-spr", compare.DimTuning: "none", compare.DimBenchmark: "fabtests"}}}
	cells := []compare.Cell{{Pool: "c3-spr", Tuning: "none", Benchmark: "osu-ccd0-ccd1", Name: "osu-ccd0-ccd1", State: "Succeeded"},
		{Pool: "c3-spr", Tuning: "none", Benchmark: "fabtests", Name: "s2-fabtests-chiplets", State: "Succeeded"}}
	rep, _, md := render(t, "s2-campaign", runs, Options{Title: "S2", Campaign: c, Cells: cells})
	var html strings.Builder
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, a := range rep.Along {
		if a.Dimension.Name == compare.DimBenchmark {
			t.Errorf("osu and fabtests compared: %s", alongTitle(a))
		}
	}
	if strings.Contains(h, "cell: succeeded") || strings.Contains(md, "cell: succeeded") {
		t.Error("rows say a cell that succeeded is missing")
	}
	plots, cellsAt, runsAt := strings.Index(h, `<section id="plots">`), strings.Index(h, `<section id="cells">`), strings.Index(h, `<section id="runs">`)
	box := strings.Index(h, "fi_msg_bw: bandwidth, intraSocket, pooled over nodes")
	if plots < 0 || box < plots || plots > cellsAt || plots > runsAt {
		t.Errorf("the plots at %d (the first S2 box plot at %d), cells at %d, runs at %d: want the box plots first", plots, box, cellsAt, runsAt)
	}
	nav := h[strings.Index(h, "<nav>"):strings.Index(h, "</nav>")]
	if n := strings.Count(nav, "<li>"); n > 12 || !strings.Contains(nav, ">fi_msg_bw</a> (") {
		t.Errorf("the contents have %d lines, want a few with one per test:\n%s", n, nav)
	}
}

// Issue 44: a small bandwidth keeps its significant digits in the chiplet
// heatmap ("0.0012", not "0.00").
func TestHeatmapSmallFigures(t *testing.T) {
	samples := s2Samples(t)
	for i := range samples {
		samples[i].Value *= 1e-6
	}
	_, plots, _ := render(t, "s2-small", group(t, samples), Options{Title: "S2, small"})
	heat := findPlot(t, plots, figure.PlotHeatmap, "fi_msg_bw: peak bandwidth between chiplets")
	if strings.Contains(heat.SVG, ">0.00<") || !strings.Contains(heat.SVG, ">0.00") {
		t.Errorf("the heatmap's small figures lost their digits")
	}
}
