package page

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

// A lone run's report opens on its headline figures (only the headline
// metrics), its full table folded; several runs' reports open on their
// comparisons, with no headline section.
func TestHeadlineLeadsALoneRun(t *testing.T) {
	fio := parseFixture(t, "fio", "fio/fio3.1_randread_4k_qd16_nj1_sata_dup0.00keys.json")
	one := group(t, newRun("StorageBenchmark").add(fio, "c2-fio", "c2", "", 0, 1).add(fio, "c2-fio", "c2", "", 1, 1.02).add(fio, "c2-fio", "c2", "", 2, 0.98).obj())
	rep, err := New(one, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := rep.headlineGrid()
	if g == nil {
		t.Fatal("a lone run has no headline figures")
	}
	for _, row := range g.rows {
		if !results.Headline(row[1]) {
			t.Errorf("headline row %v is no headline metric", row)
		}
	}
	if len(g.rows) == 0 || len(g.rows) >= len(rep.Rows) {
		t.Errorf("%d headline rows of %d figures: want the headline ones only", len(g.rows), len(rep.Rows))
	}
	var html, md bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	if i, j := strings.Index(page, `<section id="headline">`), strings.Index(page, `<section id="plots">`); i < 0 || j < 0 || i > j {
		t.Errorf("the headline section (at %d) does not come before the plots (at %d)", i, j)
	}
	if strings.Contains(page, `<details id="run-1" open>`) {
		t.Error("a lone run's full table is open below its headline figures")
	}
	if i := strings.Index(md.String(), "\n## "); i < 0 || !strings.HasPrefix(md.String()[i:], "\n## "+headlineHeading) {
		t.Errorf("the markdown does not open on the headline figures:\n%.300s", md.String())
	}
	two := group(t, newRun("StorageBenchmark").add(fio, "c2-fio", "c2", "", 0, 1).obj(), newRun("StorageBenchmark").add(fio, "c3-fio", "c3", "", 0, 2).obj())
	rep2, err := New(two, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := rep2.headlineGrid(); g != nil {
		t.Error("two runs have a headline section: they open on their comparison")
	}
}
