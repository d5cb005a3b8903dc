package report

import (
	"bytes"
	"strings"
	"testing"
)

// A campaign's report lists its cells first, the failed ones with why, in
// HTML and Markdown; a report without cells has no such section.
func TestCellsAreListed(t *testing.T) {
	fio := parseFixture(t, "fio", "fio/fio3.1_randread_4k_qd16_nj1_sata_dup0.00keys.json")
	runs := group(t, newRun("StorageBenchmark").add(fio, "c2-none-fio", "c2", "", 0, 1).obj())
	cells := []Cell{
		{Pool: "c2", Tuning: "none", Benchmark: "fio", Name: "c2-none-fio", Kind: "StorageBenchmark", State: "Succeeded", Result: "88k IOPS randread-4k"},
		{Pool: "c3", Tuning: "none", Benchmark: "fio", Name: "c3-none-fio", Kind: "StorageBenchmark", State: "Failed", Result: "ToolFailed: fio exited 1 <script>"},
		{Pool: "c3", Tuning: "tcp", Benchmark: "fio", Name: "c3-tcp-fio", Kind: "StorageBenchmark", State: "not created", Result: "the cell failed before"},
	}
	rep, err := New(runs, Options{Cells: cells})
	if err != nil {
		t.Fatal(err)
	}
	var html, md bytes.Buffer
	if err := rep.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md); err != nil {
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
	_ = rep.WriteHTML(&html)
	if strings.Contains(html.String(), `id="cells"`) {
		t.Error("a report without cells has the section")
	}
}
