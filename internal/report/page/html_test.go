package page

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/report/figure"
)

var (
	figureRE = regexp.MustCompile(`(?s)<figure class="plot[^"]*" id="([^"]+)">(.*?)</figure>`)
	httpRE   = regexp.MustCompile(`https?://[^"'\s<>]*`)
)

// pagePlots are the plots of rep's page, in its order: the ratio plots
// of the comparisons along dimensions, then Plots', drawn.
func pagePlots(t *testing.T, rep *Report) []figure.Plot {
	t.Helper()
	var out []figure.Plot
	for _, a := range alongTables(rep) {
		out = append(out, a.Plots...)
	}
	plots, err := plotsOf(rep.Runs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		svg, err := out[i].Draw()
		if err != nil {
			t.Fatal(err)
		}
		out[i].SVG = string(svg)
	}
	return append(out, plots...)
}

// checkHTML checks a report page: one <svg> per plot (besides the nodes'
// series), each with its title,
// axis labels and a legend entry per series, and nothing to fetch.
func checkHTML(t *testing.T, page string, plots []figure.Plot) {
	t.Helper()
	page = seriesRE.ReplaceAllString(page, "") // the nodes' series: see monitor_test.go
	figs := figureRE.FindAllStringSubmatch(page, -1)
	if len(figs) != len(plots) {
		t.Fatalf("%d plot figures in the page, want %d", len(figs), len(plots))
	}
	if n := strings.Count(page, "<svg"); n != len(plots) {
		t.Errorf("%d <svg> elements, want one per plot (%d)", n, len(plots))
	}
	for i, p := range plots {
		id, body := figs[i][1], figs[i][2]
		if id != p.ID {
			t.Errorf("figure %d is %q, want %q", i, id, p.ID)
		}
		if strings.Count(body, "<svg") != 1 {
			t.Errorf("%s: %d <svg> in its figure", p.ID, strings.Count(body, "<svg"))
		}
		texts := svgTexts(body)
		for _, want := range append([]string{p.Title, p.XLabel, p.YLabel}, p.Series...) {
			if !texts[want] {
				t.Errorf("%s (%s): no text %q in its SVG", p.ID, p.Title, want)
			}
		}
		if len(p.Series) == 0 {
			t.Errorf("%s: no series", p.ID)
		}
	}
	for _, u := range httpRE.FindAllString(page, -1) {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("the page refers to %s: it must need no network", u)
		}
	}
	for _, bad := range []string{"<script", "<link", "<img", "@import", "url(", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("the page has %q: it must be self-contained", bad)
		}
	}
}

var textRE = regexp.MustCompile(`(?s)<text[^>]*>(.*?)</text>`)

// svgTexts are the texts an SVG draws.
func svgTexts(svg string) map[string]bool {
	out := map[string]bool{}
	for _, m := range textRE.FindAllStringSubmatch(svg, -1) {
		out[html.UnescapeString(m[1])] = true
	}
	return out
}

func TestHTMLEscapesNames(t *testing.T) {
	samples := mpiSamples()
	for i := range samples {
		samples[i].Benchmark = `<script>alert("x")</script>` + samples[i].Benchmark
	}
	rep, err := New(group(t, samples), Options{Title: "<b>title</b>"})
	if err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "<script>") || strings.Contains(page.String(), "<b>title") {
		t.Error("a run or title name reached the page unescaped")
	}
	if !strings.Contains(page.String(), "&lt;script&gt;") {
		t.Error("the escaped run name is missing")
	}
}
