package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/tuning"
	"github.com/benchwright/benchwright/test/util"
)

// crashNode is where a crash test tunes: the sysctl and sysfs trees (a
// temporary layout, or the real /proc/sys of a network namespace of the
// test's own), the settings in the order the tuner applies them, and the
// files each setting writes.
type crashNode struct {
	root, procSys, sysFS string
	// kernel: the files are the kernel's, compared byte for byte.
	kernel   bool
	settings []tuning.Setting
	files    [][]string
}

// state is the tuner's state file of the profile.
func (c *crashNode) state() string { return filepath.Join(c.root, "state", "latency.json") }

// raw reads every file as the kernel (or the layout) prints it.
func (c *crashNode) raw(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, files := range c.files {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	return out
}

// norm is a file's value as the tuner reports it: whitespace folded, THP's
// bracketed choice.
func norm(name, raw string) string {
	v := strings.Join(strings.Fields(raw), " ")
	if i := strings.Index(v, "["); name == tuning.THP && i >= 0 {
		v = strings.Trim(strings.Fields(v[i:])[0], "[]")
	}
	return v
}

// values is each setting's value (its files agree in these tests).
func (c *crashNode) values(t *testing.T) []string {
	t.Helper()
	var out []string
	for i, files := range c.files {
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		v := norm(c.settings[i].Name, string(b))
		for _, f := range files[1:] {
			if b, err := os.ReadFile(f); err != nil || norm(c.settings[i].Name, string(b)) != v {
				t.Fatalf("%s: %s reads %q, %s %q (%v)", c.settings[i].Name, files[0], v, f, b, err)
			}
		}
		out = append(out, v)
	}
	return out
}

// tuned tells, per setting, whether it reads as requested.
func (c *crashNode) tuned(t *testing.T) []bool {
	t.Helper()
	var out []bool
	for i, v := range c.values(t) {
		out = append(out, v == c.settings[i].Value)
	}
	return out
}

func (c *crashNode) writeSettings(t *testing.T, restore bool) {
	t.Helper()
	cfg := tuning.Config{Profile: "latency", Generation: 3, Settings: c.settings, Restore: restore}
	if restore {
		cfg.Settings = nil
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.root, "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// startTuner runs the real tuner; stopAt is StopAtEnv's value ("" for none).
// The returned channel closes when the tuner reaches its stop point.
func (c *crashNode) startTuner(t *testing.T, stopAt string) (*tuner, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(tunerBin,
		"--settings="+filepath.Join(c.root, "settings.json"), "--state-dir="+filepath.Join(c.root, "state"),
		"--profile=latency", "--generation=3", "--node=node-a", "--interval=1h",
		"--proc-sys="+c.procSys, "--sysfs="+c.sysFS)
	cmd.Env = append(os.Environ(), tuning.StopAtEnv+"="+stopAt)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(errOut)
		for sc.Scan() {
			fmt.Fprintln(os.Stderr, sc.Text())
			if strings.HasPrefix(sc.Text(), tuning.StopLine) {
				close(stopped)
			}
		}
	}()
	tu := &tuner{cmd: cmd, reports: make(chan tuning.Report, 100), done: make(chan error, 1)}
	go tu.scan(t, out)
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return tu, stopped
}

// killAtStop waits for the tuner's stop point and SIGKILLs it there.
func killAtStop(t *testing.T, tu *tuner, stopped <-chan struct{}, point string) {
	t.Helper()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatalf("the tuner did not reach %s within 10s", point)
	}
	var exit *exec.ExitError
	if err := tu.stop(t, syscall.SIGKILL); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the tuner was not killed at %s: %v", point, err)
	}
}

// recorded is the state file's originals, by setting.
func (c *crashNode) recorded(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(c.state())
	if err != nil {
		t.Fatalf("the state file: %v", err)
	}
	var st struct {
		Originals []tuning.Original `json:"originals"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("the state file is not whole JSON after the kill: %v\n%s", err, b)
	}
	out := map[string][]string{}
	for _, o := range st.Originals {
		out[o.Name] = append(out[o.Name], o.Value)
	}
	return out
}

// checkOriginalsReported checks an "applied" report gives the true originals.
func (c *crashNode) checkOriginalsReported(t *testing.T, r tuning.Report, truth map[string]string) {
	t.Helper()
	for _, s := range r.Settings {
		if want, ok := truth[s.Name]; ok && s.Original != want {
			t.Errorf("the restarted tuner reports %s original %q, want the true original %q (the tuned value is %q)", s.Name, s.Original, want, s.Requested)
		}
	}
}

// checkRestored checks every file is back (byte for byte for the kernel's
// files, which print a value their own way; a layout's plain files as the
// tuner reads them) and the state gone, leaving no temporary file.
func (c *crashNode) checkRestored(t *testing.T, before []string) {
	t.Helper()
	after := c.raw(t)
	if !c.kernel {
		i := 0
		for s, files := range c.files {
			for range files {
				before[i], after[i] = norm(c.settings[s].Name, before[i]), norm(c.settings[s].Name, after[i])
				i++
			}
		}
	}
	if strings.Join(after, "|") != strings.Join(before, "|") {
		t.Errorf("not the originals after the restore:\nbefore %q\nafter  %q", before, after)
	}
	if _, err := os.Stat(c.state()); !os.IsNotExist(err) {
		t.Errorf("state file left after a full restore: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(c.root, "state", "*"))
	for _, f := range left {
		if filepath.Base(f) != ".lock" {
			t.Errorf("file left in the state directory: %s", f)
		}
	}
}

// crashScenarios kills the real tuner (a) between recording the originals
// of its second setting and writing it, (b) during the restore of a SIGTERM
// after two values came back, (c) during the restore of a deleted profile's
// tuner; after each, a restarted tuner reports and restores the true
// originals, byte for byte, never the tuned values as originals.
func crashScenarios(t *testing.T, c *crashNode) {
	snapshot := c.raw(t)
	before := func() []string { return append([]string(nil), snapshot...) }
	truth := map[string]string{}
	for i, v := range c.values(t) {
		truth[c.settings[i].Name] = v
		if v == c.settings[i].Value {
			t.Fatalf("%s is %q already: the test needs another value", c.settings[i].Name, v)
		}
	}
	n := len(c.settings)
	want := func(tuned ...int) string { // which settings are tuned, as "TTF.."
		b := []byte(strings.Repeat("F", n))
		for _, i := range tuned {
			b[i] = 'T'
		}
		return string(b)
	}
	got := func() string {
		var b strings.Builder
		for _, ok := range c.tuned(t) {
			b.WriteString(map[bool]string{true: "T", false: "F"}[ok])
		}
		return b.String()
	}
	c.writeSettings(t, false)

	// (a) Killed after the originals of the second setting are on disk,
	// before it is written: the first is tuned, the rest untouched.
	tu, stopped := c.startTuner(t, "originals-saved:2")
	killAtStop(t, tu, stopped, "originals-saved:2")
	if g := got(); g != want(0) {
		t.Fatalf("(a) after the kill: tuned %s, want %s", g, want(0))
	}
	rec := c.recorded(t)
	if len(rec) != 2 || rec[c.settings[0].Name] == nil || rec[c.settings[1].Name] == nil {
		t.Errorf("(a) the state file records %v, want the originals of %s and %s", rec, c.settings[0].Name, c.settings[1].Name)
	}
	// The restarted tuner applies everything and keeps the true originals.
	tu, _ = c.startTuner(t, "")
	r := tu.next(t, "applied", applied)
	c.checkOriginalsReported(t, r, truth)
	if g := got(); g != want(seq(n)...) {
		t.Fatalf("(a) after the restart: tuned %s, want all", g)
	}
	if err := tu.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("(a) restore: %v", err)
	}
	c.checkRestored(t, before())

	// (b) Killed in the restore of a SIGTERM, two values back (the last
	// two: the restore goes in reverse), the others still tuned.
	tu, stopped = c.startTuner(t, "restored:2")
	tu.next(t, "applied", applied)
	if err := tu.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	killAtStop(t, tu, stopped, "restored:2")
	if g, w := got(), want(seq(n-c.lastTwoUnits())...); g != w {
		t.Fatalf("(b) after the kill: tuned %s, want %s", g, w)
	}
	if rec := c.recorded(t); len(rec) != n {
		t.Errorf("(b) the state file keeps %d settings' originals, want all %d: %v", len(rec), n, rec)
	}
	// A restarted tuner of the same profile: a second apply.
	tu, _ = c.startTuner(t, "")
	r = tu.next(t, "applied", applied)
	c.checkOriginalsReported(t, r, truth)
	if err := tu.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("(b) restore: %v", err)
	}
	c.checkRestored(t, before())

	// (c) The profile is deleted while its tuner restores: killed after two
	// values, then the deleted profile's tuner restores the rest.
	tu, _ = c.startTuner(t, "")
	tu.next(t, "applied", applied)
	_ = tu.stop(t, syscall.SIGKILL) // the pod is replaced: the node stays tuned
	c.writeSettings(t, true)
	tu, stopped = c.startTuner(t, "restored:2")
	killAtStop(t, tu, stopped, "restored:2")
	if g := got(); g == want() || g == want(seq(n)...) {
		t.Fatalf("(c) after the kill: tuned %s, want a restore half-way", g)
	}
	tu, _ = c.startTuner(t, "")
	tu.next(t, "restored", restored)
	if err := tu.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("(c) exit: %v", err)
	}
	c.checkRestored(t, before())
}

// lastTwoUnits is how many settings the first two restored values complete
// (the restore writes files in reverse; a governor has one per CPU).
func (c *crashNode) lastTwoUnits() int {
	files, settings := 0, 0
	for i := len(c.files) - 1; i >= 0 && files+len(c.files[i]) <= 2; i-- {
		files += len(c.files[i])
		settings++
	}
	return settings
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestTunerKilledHalfWay crashes the real tuner on a temporary /proc/sys
// and /sys layout, for settings that are not per network namespace.
func TestTunerKilledHalfWay(t *testing.T) {
	n := newNode(t)
	p := func(rel string) string { return filepath.Join(n.root, rel) }
	crashScenarios(t, &crashNode{
		root: n.root, procSys: p("proc/sys"), sysFS: p("sys"),
		settings: []tuning.Setting{
			{Name: tuning.Governor, Value: "performance", Source: "spec"},
			{Name: tuning.THP, Value: "never", Source: "spec"},
			{Name: "net.ipv4.tcp_rmem", Value: "4096 87380 16777216", Source: "spec"},
			{Name: "vm.swappiness", Value: "10", Source: "spec"},
		},
		files: [][]string{
			{p("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"), p("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor")},
			{p("sys/kernel/mm/transparent_hugepage/enabled")},
			{p("proc/sys/net/ipv4/tcp_rmem")},
			{p("proc/sys/vm/swappiness")},
		},
	})
}

// TestTunerKilledHalfWayOnRealSysctls crashes the real tuner while it tunes
// the kernel's own net.* sysctls, in a network namespace of the test's own
// (the test binary runs itself again under unshare -n), so the machine's
// values are never touched.
func TestTunerKilledHalfWayOnRealSysctls(t *testing.T) {
	if !util.InOwnNetNS(t, tunerBinEnv+"="+tunerBin) {
		return // the re-run passed
	}
	names := []string{"net.ipv4.tcp_fastopen", "net.ipv4.tcp_rmem", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_wmem"}
	values := []string{"3", "4096 87380 16777216", "30", "0", "4096 16384 16777216"}
	c := &crashNode{root: t.TempDir(), procSys: "/proc/sys", sysFS: t.TempDir(), kernel: true}
	for i, name := range names {
		c.settings = append(c.settings, tuning.Setting{Name: name, Value: values[i], Source: "spec"})
		c.files = append(c.files, []string{filepath.Join("/proc/sys", strings.ReplaceAll(name, ".", "/"))})
	}
	crashScenarios(t, c)
}
