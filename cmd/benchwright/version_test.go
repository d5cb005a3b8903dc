package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The version of a binary built from this checkout (as make build does:
// -buildvcs=auto, whatever GOFLAGS says) names its commit, as git does, and
// its Go.
func TestVersionCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "benchwright")
	if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(out))
	if !regexp.MustCompile(`^benchwright \S+ (\(commit [0-9a-f]{12}(, modified)?\) )?go\S+ \w+/\w+$`).MatchString(line) {
		t.Fatalf("version: %q", line)
	}
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err == nil && !strings.Contains(line, "(commit "+strings.TrimSpace(string(head))) {
		t.Errorf("version %q does not name HEAD %s", line, head)
	}
	var buf bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&buf)
	cmd.SetArgs([]string{"version"})
	if err := cmd.Execute(); err != nil || !strings.HasPrefix(buf.String(), "benchwright ") {
		t.Errorf("through cobra: %q, %v", buf.String(), err)
	}
}
