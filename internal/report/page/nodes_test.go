package page

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// nodeSample is a sampler's summary sample of benchmark's run on node n1,
// as the manager labels it; labels adds k, v pairs.
func nodeSample(benchmark, test, metric string, rep int, v float64, labels ...string) results.Sample {
	s := sample(benchmark, "c2-standard-60", test, metric, "%", "", rep, v)
	s.Labels[sampler.LabelSource] = sampler.SourceValue
	s.Labels[results.LabelNode] = "n1"
	for i := 0; i+1 < len(labels); i += 2 {
		s.Labels[labels[i]] = labels[i+1]
	}
	return s
}

// busyStorage are storageSamples with what fio-c2's node did: one core
// and vda at their limits during randread-4k, two disks kept apart; the
// warm-up repetition far off, as the tool's.
func busyStorage() []results.Sample {
	out := storageSamples()
	for rep := range 4 {
		f := 1.0
		if rep == 0 {
			f = 0.1
		}
		for _, s := range []results.Sample{
			nodeSample("fio-c2", "randread-4k", sampler.MetricCPUUtil, rep, 40*f),
			nodeSample("fio-c2", "randread-4k", sampler.MetricBusiestCore, rep, 97*f),
			nodeSample("fio-c2", "randread-4k", sampler.MetricSteal, rep, 1),
			nodeSample("fio-c2", "randread-4k", sampler.MetricDiskUtil, rep, 99.8*f, sampler.LabelDevice, "vda"),
			nodeSample("fio-c2", "randread-4k", sampler.MetricDiskIOPS, rep, 100000*f, sampler.LabelDevice, "vda"),
			nodeSample("fio-c2", "randread-4k", sampler.MetricDiskUtil, rep, 3, sampler.LabelDevice, "vdb"),
			nodeSample("fio-c2", "randread-4k", sampler.MetricDiskIOPS, rep, 10, sampler.LabelDevice, "vdb"),
			nodeSample("fio-c3", "randread-4k", sampler.MetricBusiestCore, rep, 50),
			nodeSample("fio-c3", "randread-4k", sampler.MetricDiskIOPS, rep, 260000, sampler.LabelDevice, "nvme0n1"),
		} {
			if rep == 0 {
				s.Labels[results.LabelWarmup] = "true"
			}
			out = append(out, s)
		}
	}
	return out
}

// The sampler's summaries are never tool figures: not in Summaries, the
// figures' rows, CSV, comparisons, plots or fits; they are each run's
// Nodes, a device's apart from another's.
func TestSamplerSamplesAreNotFigures(t *testing.T) {
	runs := group(t, busyStorage())
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	isNode := func(metric string) bool {
		return strings.HasPrefix(metric, "node_") || strings.HasPrefix(metric, "disk_")
	}
	for _, r := range runs {
		for _, s := range r.Summaries {
			if isNode(s.Metric) {
				t.Errorf("%s: the sampler's %s is among the tool's summaries", r.Name, s.Metric)
			}
		}
		if r.Samples != 9 || r.Repetitions != 3 {
			t.Errorf("%s: %d samples, %d repetitions: want the tool's 9 and 3", r.Name, r.Samples, r.Repetitions)
		}
	}
	var vda, vdb results.Summary
	for _, s := range runs[0].Nodes {
		if s.Metric == sampler.MetricDiskIOPS {
			switch s.Labels[sampler.LabelDevice] {
			case "vda":
				vda = s
			case "vdb":
				vdb = s
			}
		}
	}
	if vda.Stats.N != 3 || vda.Stats.Median != 100000 || vdb.Stats.Median != 10 {
		t.Errorf("disk IOPS: vda %+v, vdb %+v: want each device's over the 3 counted repetitions", vda.Stats, vdb.Stats)
	}
	for _, row := range compare.Table(runs, true) {
		if isNode(row.Metric) {
			t.Errorf("figure row %+v", row)
		}
	}
	rows, err := compare.With(runs, 0, compare.Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if isNode(row.Metric) {
			t.Errorf("comparison row %+v", row)
		}
	}
	for _, p := range plan(runs) {
		if strings.Contains(p.Title, "disk_") || strings.Contains(p.Title, "node_") {
			t.Errorf("plot %q", p.Title)
		}
	}
	rep, err := New(runs, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := rep.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(csv.String(), "disk_iops") || strings.Contains(csv.String(), "node_busiest") {
		t.Errorf("the CSV has the sampler's figures:\n%s", csv.String())
	}
	for _, a := range rep.Along {
		for _, g := range a.Groups {
			for _, row := range g.Rows {
				if isNode(row.Metric) {
					t.Errorf("along %s: row %+v", a.Dimension.Name, row)
				}
			}
		}
	}
}

// Two pods of one node on the same side (two MPI workers) sample the same
// node: their figures are averaged, not added as throughput is.
func TestNodeSummariesAverageOneNode(t *testing.T) {
	runs := group(t, storageSamples()[3:6], []results.Sample{
		nodeSample("fio-c2", "randread-4k", sampler.MetricDiskIOPS, 1, 1000, sampler.LabelDevice, "vda", sampler.LabelSide, "worker"),
		nodeSample("fio-c2", "randread-4k", sampler.MetricDiskIOPS, 1, 1200, sampler.LabelDevice, "vda", sampler.LabelSide, "worker"),
	})
	if len(runs[0].Nodes) != 1 || runs[0].Nodes[0].Stats.Median != 1100 {
		t.Errorf("nodes %+v, want one figure of 1100", runs[0].Nodes)
	}
}

func TestLimitsAtTheirThresholds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []results.Sample
		want  string
	}{
		{"below every threshold", []results.Sample{
			nodeSample("a", "read", sampler.MetricBusiestCore, 0, 94.9),
			nodeSample("a", "read", sampler.MetricDiskUtil, 0, 94.9, sampler.LabelDevice, "vda"),
			nodeSample("a", "read", sampler.MetricCPUUtil, 0, 94.9),
			nodeSample("a", "read", sampler.MetricSteal, 0, 4.9),
		}, ""},
		{"one core", []results.Sample{nodeSample("a", "read", sampler.MetricBusiestCore, 0, 95)}, "one core 95 % busy during read"},
		{"a disk", []results.Sample{nodeSample("a", "read", sampler.MetricDiskUtil, 0, 99.7, sampler.LabelDevice, "vda")},
			"vda at 100 % utilisation during read"},
		{"the node, not one core again", []results.Sample{
			nodeSample("a", "read", sampler.MetricCPUUtil, 0, 97),
			nodeSample("a", "read", sampler.MetricBusiestCore, 0, 100),
		}, "the node's CPUs 97 % busy during read"},
		{"steal", []results.Sample{nodeSample("a", "read", sampler.MetricSteal, 0, 6)},
			"steal 6 % (the hypervisor held back CPU time) during read"},
		{"a side of two nodes", []results.Sample{
			nodeSample("a", "read", sampler.MetricBusiestCore, 0, 99, sampler.LabelSide, "server"),
			nodeSample("a", "read", sampler.MetricBusiestCore, 0, 20, sampler.LabelSide, "client", results.LabelNode, "n2"),
		}, "one core 99 % busy during read (on n1, server side)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := group(t, []results.Sample{sample("a", "m", "read", "read_iops", "IOPS", "", 0, 1)}, tc.nodes)
			var got []string
			for _, l := range compare.LimitsOf(runs[0]) {
				got = append(got, l.String())
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("limits %q, want %q", got, tc.want)
			}
		})
	}
}

// The limits are said in the section and beside the tool's figures of the
// test: the figures table's footnote and the plots' captions.
func TestLimitsBesideTheFigures(t *testing.T) {
	rep, err := New(group(t, busyStorage()), Options{Title: "limits"})
	if err != nil {
		t.Fatal(err)
	}
	var md, page, text bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, rep.Runs, rep.Rows); err != nil {
		t.Fatal(err)
	}
	note := "[1] randread-4k: one core 97 % busy; vda at 100 % utilisation."
	figures := md.String()[strings.Index(md.String(), "## Figures"):strings.Index(md.String(), "## "+nodesHeading)]
	for name, out := range map[string]string{"markdown figures": figures, "html": page.String(), "text": text.String()} {
		if !strings.Contains(out, "randread-4k [1]") || !strings.Contains(out, note) {
			t.Errorf("%s: no footnote %q on randread-4k:\n%s", name, note, out)
		}
	}
	if strings.Count(figures, "[1] randread-4k") != 1 {
		t.Errorf("the footnote is on fio-c3's figures too:\n%s", figures)
	}
	captioned := 0
	for _, p := range plan(rep.Runs) {
		if strings.Contains(p.Caption, "At a limit (see What the nodes did): fio-c2 (c2-standard-60), randread-4k: one core 97 % busy; vda at 100 % utilisation.") {
			captioned++
		}
	}
	if captioned != 1 { // the figure of every metric's bars
		t.Errorf("%d plots captioned with the limits, want 1", captioned)
	}
	for _, want := range []string{"<li>one core 97 % busy during randread-4k</li>", "<li>vda at 100 % utilisation during randread-4k</li>"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the section does not say %q", want)
		}
	}
}

func TestNodesSection(t *testing.T) {
	rep, err := New(group(t, busyStorage()), Options{Title: "nodes"})
	if err != nil {
		t.Fatal(err)
	}
	var md, page bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	_, nodes, ok := strings.Cut(md.String(), "## "+nodesHeading)
	if !ok {
		t.Fatal("the Markdown has no section of what the nodes did")
	}
	for _, want := range []string{
		"### fio-c2 (c2-standard-60)",
		"- one core 97 % busy during randread-4k",
		"| test        | CPU % | busiest core % | steal % |   n |",
		"| randread-4k |  40.0 |           97.0 |     1.0 |   3 |",
		"| test        | device | util % |    IOPS |   n |",
		"| randread-4k | vda    |   99.8 | 100,000 |   3 |",
		"| randread-4k | vdb    |    3.0 |   10.00 |   3 |",
		"### fio-c3 (c3-highcpu-176)",
		"| randread-4k | nvme0n1 | 260,000 |   3 |",
	} {
		if !strings.Contains(nodes, want) {
			t.Errorf("the Markdown section has no %q:\n%s", want, nodes)
		}
	}
	html := page.String()
	_, section, ok := strings.Cut(html, `<section id="nodes">`)
	if !ok {
		t.Fatal("the page has no section of what the nodes did")
	}
	for _, want := range []string{`<a href="#nodes">What the nodes did</a>`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	for _, want := range []string{"<h2>What the nodes did</h2>", `<h3 class="dim" id="nodes-1">fio-c2 (c2-standard-60)</h3>`,
		"<h4>Disks</h4>", `<td class="num worse">97.0</td>`, `<td class="num worse">99.8</td>`, `<td class="num">3.0</td>`} {
		if !strings.Contains(section, want) {
			t.Errorf("the section has no %q", want)
		}
	}
	if strings.Index(html, `<section id="figures">`) > strings.Index(html, `<section id="nodes">`) {
		t.Error("the section comes before the tool's figures")
	}
	checkHTML(t, html, pagePlots(t, rep))

	// Without the sampler's samples, no section.
	plain, err := New(group(t, storageSamples()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	md.Reset()
	page.Reset()
	if err := plain.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := plain.HTML(&page); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String()+page.String(), nodesHeading) {
		t.Error("a report without the sampler's samples has the section")
	}
}
