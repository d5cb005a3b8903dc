package util

import (
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Screenshot renders the HTML file page in Debian's headless chromium at
// 1400x2000 and returns the picture and the PNG's path. It skips the test
// when chromium is missing, and fails instead under CI, which installs it.
func Screenshot(t testing.TB, page string) (image.Image, string) {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; CI installs it (make test-deps)")
		}
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	shoot := func() ([]byte, error) {
		cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
			"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,2000", "--screenshot="+shot, "file://"+page)
		return cmd.CombinedOutput()
	}
	out, err := shoot()
	var exit *exec.ExitError
	if errors.As(err, &exit) && !exit.Exited() {
		// Killed by a signal: chromium has segfaulted here on a loaded
		// machine (a CI run of every unit package at once), not on the page.
		t.Logf("chromium: %v; once more", err)
		out, err = shoot()
	}
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img, shot
}

// Inked counts the pixels of img that are not (nearly) white, and all pixels.
func Inked(img image.Image) (inked, total int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			total++
			if c.R < 240 || c.G < 240 || c.B < 240 {
				inked++
			}
		}
	}
	return inked, total
}
