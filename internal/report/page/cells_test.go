package page

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// A campaign's report lists its cells first, the failed ones with why, in
// HTML and Markdown; a report without cells has no such section.
func TestCellsAreListed(t *testing.T) {
	fio := parseFixture(t, "fio", "fio/fio3.1_randread_4k_qd16_nj1_sata_dup0.00keys.json")
	runs := group(t, newRun("StorageBenchmark").add(fio, "c2-none-fio", "c2", "", 0, 1).obj())
	cells := []compare.Cell{
		{Pool: "c2", Tuning: "none", Benchmark: "fio", Name: "c2-none-fio", Kind: "StorageBenchmark", State: "Succeeded", Result: "88k IOPS randread-4k"},
		{Pool: "c3", Tuning: "none", Benchmark: "fio", Name: "c3-none-fio", Kind: "StorageBenchmark", State: "Failed", Result: "ToolFailed: fio exited 1 <script>"},
		{Pool: "c3", Tuning: "tcp", Benchmark: "fio", Name: "c3-tcp-fio", Kind: "StorageBenchmark", State: "not created", Result: "the cell failed before"},
	}
	rep, err := New(runs, Options{Cells: cells})
	if err != nil {
		t.Fatal(err)
	}
	var html, md bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"html": html.String(), "md": md.String()} {
		for _, want := range []string{"Cells", "2 of them failed", "88k IOPS randread-4k", "tcp", "not created", "ToolFailed: fio exited 1"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		runs := map[string]string{"html": `<section id="runs">`, "md": "## Runs"}[name]
		if strings.Index(out, "ToolFailed") > strings.Index(out, runs) {
			t.Errorf("%s: the cells come after the runs", name)
		}
	}
	if strings.Contains(html.String(), "<script>") {
		t.Error("a benchmark's message is not escaped in HTML")
	}
	rep, _ = New(runs, Options{})
	html.Reset()
	_ = rep.HTML(&html)
	if strings.Contains(html.String(), `id="cells"`) {
		t.Error("a report without cells has the section")
	}
}

// A cell's expectations (a ratio to another cell) are a column of the
// cells' table, marked where they fail; without any, there is no column.
func TestCellsShowExpectations(t *testing.T) {
	fio := parseFixture(t, "fio", "fio/fio3.1_randread_4k_qd16_nj1_sata_dup0.00keys.json")
	runs := group(t, newRun("StorageBenchmark").add(fio, "c2-none-fio", "c2", "", 0, 1).obj())
	cells := []compare.Cell{
		{Pool: "c2", Tuning: "none", Benchmark: "fio", State: "Succeeded", Result: "88k IOPS"},
		{Pool: "c3", Tuning: "none", Benchmark: "fio", State: "Succeeded", Result: "200k IOPS",
			Expectations: "hold: 1 expectations hold: randread-4k read_iops = 200000 IOPS (2.27x baseline wf-c2-none-fio's 88000; at least 2x)"},
		{Pool: "c2d", Tuning: "none", Benchmark: "fio", State: "Succeeded", Result: "90k IOPS",
			Expectations: "fail: 1 of 1 expectations fail: randread-4k read_iops = 90000 IOPS (1.02x baseline ...): 1.02x the baseline, below 1.5x", ExpectationsFailed: true},
	}
	rep, err := New(runs, Options{Cells: cells})
	if err != nil {
		t.Fatal(err)
	}
	var html, md bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if flat := strings.Join(strings.Fields(md.String()), " "); !strings.Contains(flat, "| expectations |") || !strings.Contains(flat, "2.27x baseline wf-c2-none-fio") {
		t.Errorf("the markdown cells lack the expectations:\n%s", md.String())
	}
	if !strings.Contains(html.String(), `<td class="worse">fail: 1 of 1 expectations fail`) {
		t.Errorf("the failing expectation is not marked in the page")
	}
	cells[1].Expectations, cells[2].Expectations = "", ""
	if g := cellsGrid(cells); len(g.header) != 6 {
		t.Errorf("cells without expectations have columns %v", g.header)
	}
}

// Each cell's run against its history (the Regressed condition) is a
// column of the cells' table, marked where the run regressed, next to the
// expectations; without a results database there is no column.
func TestCellsShowHistory(t *testing.T) {
	fio := parseFixture(t, "fio", "fio/fio3.1_randread_4k_qd16_nj1_sata_dup0.00keys.json")
	runs := group(t, newRun("StorageBenchmark").add(fio, "c2-none-fio", "c2", "", 0, 1).obj())
	cells := []compare.Cell{
		{Pool: "c2", Tuning: "none", Benchmark: "fio", State: "Succeeded", Result: "88k IOPS",
			History: "steady: randread-4k read_iops +0.4% against 6 runs"},
		{Pool: "c3", Tuning: "none", Benchmark: "fio", State: "Succeeded", Result: "70k IOPS",
			Expectations: "hold: 1 expectations hold", History: "regressed: randread-4k read_iops Regressed -20.0% (step, p = 1.1e-12, 1 run(s) against 5)", Regressed: true},
		{Pool: "c2d", Tuning: "none", Benchmark: "fio", State: "Succeeded", Result: "90k IOPS",
			History: "not judged: 2 earlier runs, 4 needed"},
	}
	rep, err := New(runs, Options{Cells: cells})
	if err != nil {
		t.Fatal(err)
	}
	var html, md bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(md.String()), " ")
	if !strings.Contains(flat, "| expectations | against its history |") || !strings.Contains(flat, "Regressed -20.0% (step") {
		t.Errorf("the markdown cells lack the history:\n%s", md.String())
	}
	page := html.String()
	if !strings.Contains(page, `<td class="worse">regressed: randread-4k read_iops Regressed -20.0%`) {
		t.Error("the regressed run is not marked in the page")
	}
	for _, calm := range []string{`<td>steady: randread-4k`, `<td>not judged: 2 earlier runs`, `<td>hold: 1 expectations hold</td>`} {
		if !strings.Contains(page, calm) {
			t.Errorf("the page lacks %q unmarked", calm)
		}
	}
	for i := range cells {
		cells[i].History = ""
	}
	if g := cellsGrid(cells); slices.Contains(g.header, colHistory) {
		t.Errorf("cells without a history have columns %v", g.header)
	}
}
