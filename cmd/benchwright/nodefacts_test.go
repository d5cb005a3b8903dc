package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/nodefacts"
)

// nodeRoot lays out a node's /sys and /proc in a temporary directory.
func nodeRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range map[string]string{
		"sys/class/net/eth0/mtu": "1460\n",
		"proc/cpuinfo":           "processor\t: 0\ncpu MHz\t\t: 2800.000\n",
		"proc/self/status":       "Cpus_allowed_list:\t0\n",
	} {
		layFile(t, filepath.Join(root, p), content)
	}
	return root
}

func layFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNodefactsCommand(t *testing.T) {
	root := nodeRoot(t)
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"nodefacts", "--root", root, "--network", "host"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	f, err := nodefacts.ParseLine(out.Bytes())
	if err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if f.CPUMHz != 2800 || f.MTU != 1460 || f.MTUInterface != "eth0" || f.Network != "host" {
		t.Errorf("facts %+v", f)
	}
	cmd = newRootCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"nodefacts", "--network", "bridge"})
	if err := cmd.Execute(); err == nil {
		t.Error("--network bridge accepted")
	}
}

// runNodefacts runs the command with a termination log; its stdout and
// stderr.
func runNodefacts(t *testing.T, root, terminationLog string) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"nodefacts", "--root", root, "--termination-log", terminationLog})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	if _, err := nodefacts.ParseLine(out.Bytes()); err != nil {
		t.Fatalf("stdout: %v: %q", err, out.String())
	}
	return out.String(), errOut.String()
}

// The line is also the termination message.
func TestNodefactsTerminationLog(t *testing.T) {
	message := filepath.Join(t.TempDir(), "termination-log")
	layFile(t, message, "")
	out, _ := runNodefacts(t, nodeRoot(t), message)
	if got, err := os.ReadFile(message); err != nil || string(got) != out {
		t.Errorf("termination message %q (%v), want stdout %q", got, err, out)
	}
}

// A line longer than the kubelet keeps of a message is not written there,
// nor is a message the step cannot write a failure: the log has the line.
func TestNodefactsTerminationLogNotWritten(t *testing.T) {
	root := nodeRoot(t)
	for i := range 40 {
		layFile(t, filepath.Join(root, "sys/devices/system/cpu/vulnerabilities", fmt.Sprintf("flaw_%02d", i)), "Mitigation: "+strings.Repeat("x", 100))
	}
	message := filepath.Join(t.TempDir(), "termination-log")
	layFile(t, message, "")
	out, warning := runNodefacts(t, root, message)
	if len(out) <= nodefacts.MaxMessage {
		t.Fatalf("a line of %d bytes: the test wants a longer one", len(out))
	}
	if got, err := os.ReadFile(message); err != nil || len(got) != 0 {
		t.Errorf("termination message %d bytes (%v), want none", len(got), err)
	}
	if !strings.Contains(warning, "not written") {
		t.Errorf("stderr %q lacks a warning", warning)
	}
	if _, warning = runNodefacts(t, nodeRoot(t), filepath.Join(t.TempDir(), "no", "such", "dir")); !strings.Contains(warning, "warning:") {
		t.Errorf("an unwritable message: stderr %q lacks a warning", warning)
	}
}
