package report

import (
	"bytes"
	"strings"
	"testing"
)

// A campaign's failed benchmarks are listed, with why, in HTML and Markdown;
// a report without any has no such section.
func TestMissingRunsAreListed(t *testing.T) {
	fio := parseFixture(t, "fio", "fio/fio3.1_randread_4k_qd16_nj1_sata_dup0.00keys.json")
	runs := group(t, newRun("StorageBenchmark").add(fio, "c2-none-fio", "c2", "", 0, 1).obj())
	missing := []Missing{
		{Name: "c3-none-fio", Kind: "StorageBenchmark", Cell: "c3/none", State: "Failed", Reason: "ToolFailed: fio exited 1 <script>"},
		{Name: "c3-tcp-fio", Kind: "StorageBenchmark", Cell: "c3/tcp", State: "not created", Reason: "the cell failed before"},
	}
	rep, err := New(runs, Options{Missing: missing})
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
		for _, want := range []string{"Not in this report", "c3-none-fio", "c3/tcp", "not created", "ToolFailed: fio exited 1"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	if strings.Contains(html.String(), "<script>") {
		t.Error("a benchmark's message is not escaped in HTML")
	}
	rep, _ = New(runs, Options{})
	html.Reset()
	_ = rep.WriteHTML(&html)
	if strings.Contains(html.String(), "Not in this report") {
		t.Error("a report with nothing missing has the section")
	}
}
