package page

import (
	"bytes"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchwright/benchwright/internal/report/figure"
	"github.com/benchwright/benchwright/test/util"
)

// The S1 report as a browser draws it: Debian's chromium renders the page
// headless and the screenshot must show both runs' series colours and more
// than a blank page — the offline page really draws its plots.
func TestReportRendersInChromium(t *testing.T) {
	tcp := parseFixture(t, "osu", "osu/osu_latency_v5.8_gke_flux.txt")
	fast := parseFixture(t, "osu", "osu/osu_latency_v7.5_validation_cscs_mpich.txt")
	runs := group(t,
		newRun(mpiKind).add(fast, "osu-slingshot", "gh200", "", 0, 1).obj(),
		newRun(mpiKind).add(tcp, "osu-tcp", "cloud-vm", "", 0, 1).obj(),
	)
	rep, err := New(runs, Options{Title: "S1 in a browser"})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(html, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	img, shot := util.Screenshot(t, html)
	counts := map[color.RGBA]int{figure.SeriesColor(0): 0, figure.SeriesColor(1): 0}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			for want := range counts {
				if nearColor(c, want) {
					counts[want]++
				}
			}
		}
	}
	for c, n := range counts {
		if n < 100 {
			t.Errorf("series colour %v drawn on %d pixels: a series is missing", c, n)
		}
	}
	inked, total := util.Inked(img)
	if inked*100 < total*3 {
		t.Errorf("only %d of %d pixels are not white: the page did not draw", inked, total)
	}
	t.Logf("screenshot %dx%d: %d inked pixels, series pixels %v", b.Dx(), b.Dy(), inked, counts)
	keep(t, "s1-browser.png", mustRead(t, shot))
}

func nearColor(a, b color.RGBA) bool {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return d(a.R, b.R) <= 12 && d(a.G, b.G) <= 12 && d(a.B, b.B) <= 12
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
