package page

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A long comparison without message sizes (seed 000's 8 fio workloads, 4
// figures each, per pool and volume layout) leads with each test's first
// headline figure, the seed's ratio table, and folds the full table; a
// short one is shown whole, without a summary.
func TestAlongSummaryOfALongComparison(t *testing.T) {
	b := newCampaign([]string{"c2", "c3"}, []string{"none"}, []string{"1pd", "10pd"})
	scale := map[string]float64{"c2": 1, "c3": 2.6}
	for _, pool := range []string{"c2", "c3"} {
		for _, bench := range []string{"1pd", "10pd"} {
			for w := range 8 {
				test := fmt.Sprintf("workload-%d", w)
				b.cell(pool, "none", bench, pool, test, "read_iops", "IOPS", map[string]float64{"": 1000 * scale[pool] * float64(w+1)}, nil)
				b.cell(pool, "none", bench, pool, test, "read_bw", "MiB/s", map[string]float64{"": 4 * scale[pool] * float64(w+1)}, nil)
				b.cell(pool, "none", bench, pool, test, "read_clat_mean", "us", map[string]float64{"": 100 / scale[pool]}, nil)
				b.cell(pool, "none", bench, pool, test, "read_clat_p99", "us", map[string]float64{"": 300 / scale[pool]}, nil)
			}
		}
	}
	runs, c := b.runs(t)
	rep, _ := newReport(t, runs, Options{Campaign: c})
	var html bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	start := strings.Index(page, "<h3 class=\"dim\" id=\"dimension-1\">pool: c3 / c2, per benchmark</h3>")
	if start < 0 {
		t.Fatalf("no comparison along pool")
	}
	section, _, _ := strings.Cut(page[start:], "</details>")
	summary, full, ok := strings.Cut(section, "<details>")
	if !ok || !strings.Contains(full, "The table: 64 rows, every figure of every test") {
		t.Fatalf("the full table is not folded below a summary:\n%s", section)
	}
	if n := strings.Count(summary, "<td>read_iops</td>"); n != 16 {
		t.Errorf("the summary has %d read_iops rows, want 16 (8 workloads x 2 benchmarks)", n)
	}
	if strings.Contains(summary, "<td>read_bw</td>") || strings.Contains(summary, "<td>read_clat_mean</td>") {
		t.Error("the summary has more than each test's first headline figure")
	}
	if !strings.Contains(summary, "2.60x") || strings.Count(full, "<td>read_clat_p99</td>") != 16 {
		t.Errorf("the summary lacks the ratio, or the full table some figures (%d p99 rows):\n%s", strings.Count(full, "<td>read_clat_p99</td>"), summary)
	}

	short, c2 := s0(t, false)
	rep, _ = newReport(t, short, Options{Campaign: c2})
	html.Reset()
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html.String(), "Each test's first headline figure") {
		t.Error("a short comparison has a summary")
	}
}
