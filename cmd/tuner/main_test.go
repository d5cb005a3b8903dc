package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/tuning"
)

// tunerBin is the tuner built once for these tests: they run the real binary.
var tunerBin string

// tunerBinEnv hands the built tuner to this test binary run again in a
// network namespace of its own.
const tunerBinEnv = "BENCHWRIGHT_TUNER_TEST_BIN"

func TestMain(m *testing.M) {
	if tunerBin = os.Getenv(tunerBinEnv); tunerBin != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "tuner-test-")
	if err != nil {
		panic(err)
	}
	tunerBin = filepath.Join(dir, "tuner")
	if out, err := exec.Command("go", "build", "-o", tunerBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the tuner: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// node is a temporary directory laid out like /proc/sys and /sys.
type node struct{ root string }

var nodeFiles = map[string]string{
	"proc/sys/net/core/busy_poll":                          "0\n",
	"proc/sys/net/ipv4/tcp_rmem":                           "4096\t131072\t6291456\n",
	"proc/sys/vm/swappiness":                               "60\n",
	"sys/kernel/mm/transparent_hugepage/enabled":           "always [madvise] never\n",
	"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "powersave\n",
	"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": "powersave\n",
}

func newNode(t *testing.T) *node {
	t.Helper()
	n := &node{root: t.TempDir()}
	for rel, v := range nodeFiles {
		n.write(t, rel, v)
	}
	return n
}

func (n *node) write(t *testing.T, rel, v string) {
	t.Helper()
	p := filepath.Join(n.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (n *node) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(n.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

var settings = tuning.Config{Profile: "latency", Generation: 3, Settings: []tuning.Setting{
	{Name: tuning.Governor, Value: "performance", Source: "spec"},
	{Name: tuning.THP, Value: "never", Source: "spec"},
	{Name: "net.core.busy_poll", Value: "50", Source: "spec"},
	{Name: "net.ipv4.tcp_rmem", Value: "4096 87380 16777216", Source: "spec"},
	{Name: "vm.swappiness", Value: "10", Source: "spec"},
}}

func (n *node) settingsFile(t *testing.T, cfg tuning.Config) string {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.write(t, "settings.json", string(b))
	return filepath.Join(n.root, "settings.json")
}

// tuner is a running tuner and its report lines.
type tuner struct {
	cmd     *exec.Cmd
	reports chan tuning.Report
	done    chan error
}

func (n *node) start(t *testing.T, extra ...string) *tuner {
	t.Helper()
	args := append([]string{
		"--settings=" + filepath.Join(n.root, "settings.json"), "--state-dir=" + filepath.Join(n.root, "state"),
		"--profile=latency", "--generation=3", "--node=node-a", "--interval=100ms",
		"--proc-sys=" + filepath.Join(n.root, "proc/sys"), "--sysfs=" + filepath.Join(n.root, "sys"),
	}, extra...)
	cmd := exec.Command(tunerBin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tu := &tuner{cmd: cmd, reports: make(chan tuning.Report, 100), done: make(chan error, 1)}
	go tu.scan(t, out)
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return tu
}

func (tu *tuner) scan(t *testing.T, out io.Reader) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		r, err := tuning.ParseReports(sc.Bytes())
		if err != nil {
			t.Errorf("a stdout line that is not a report: %q", sc.Text())
			continue
		}
		tu.reports <- r
	}
	close(tu.reports)
	tu.done <- tu.cmd.Wait()
}

// next waits for the next report that matches.
func (tu *tuner) next(t *testing.T, what string, match func(tuning.Report) bool) tuning.Report {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r, ok := <-tu.reports:
			if !ok {
				t.Fatalf("the tuner ended before reporting %s", what)
			}
			if match(r) {
				return r
			}
		case <-deadline:
			t.Fatalf("no report %s within 10s", what)
		}
	}
}

// stop signals the tuner and waits for its exit.
func (tu *tuner) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	if err := tu.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return tu.wait(t)
}

// wait drains the reports and returns the exit.
func (tu *tuner) wait(t *testing.T) error {
	t.Helper()
	for range tu.reports {
	}
	select {
	case err := <-tu.done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the tuner did not exit within 10s")
	}
	return nil
}

func applied(r tuning.Report) bool  { return r.Phase == tuning.PhaseApplied }
func restored(r tuning.Report) bool { return r.Phase == tuning.PhaseRestored }

func TestTunerAppliesReportsDriftAndRestoresOnSIGTERM(t *testing.T) {
	n := newNode(t)
	n.settingsFile(t, settings)
	tu := n.start(t)

	r := tu.next(t, "applied", applied)
	if !r.Tuned || r.Node != "node-a" || r.Profile != "latency" || r.Generation != 3 || len(r.Settings) != 5 {
		t.Fatalf("first report: %+v", r)
	}
	// As root (the tuner's user), the report counts the firewall rules of
	// its network namespace.
	if os.Geteuid() == 0 && r.FirewallRules == nil {
		t.Error("the report of a tuner running as root has no firewall rule count")
	}
	if got := n.read(t, "proc/sys/net/ipv4/tcp_rmem"); got != "4096 87380 16777216" {
		t.Errorf("tcp_rmem = %q", got)
	}
	if got := n.read(t, "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor"); got != "performance" {
		t.Errorf("cpu1 governor = %q", got)
	}

	n.write(t, "proc/sys/vm/swappiness", "30\n") // drift
	tu.next(t, "showing the drift", func(r tuning.Report) bool {
		for _, s := range r.Settings {
			if s.Name == "vm.swappiness" && !s.OK && s.Observed == "30" && s.Original == "60" {
				return !r.Tuned
			}
		}
		return false
	})

	if err := tu.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r = tu.next(t, "restored", restored)
	for _, s := range r.Settings {
		if !s.OK {
			t.Errorf("not restored: %+v", s)
		}
	}
	if err := tu.wait(t); err != nil {
		t.Errorf("exit after restoring: %v", err)
	}
	for rel, v := range nodeFiles {
		want := strings.Join(strings.Fields(v), " ")
		if strings.HasSuffix(rel, "enabled") {
			want = "madvise"
		}
		if got := n.read(t, rel); got != want {
			t.Errorf("%s = %q after SIGTERM, want the original %q", rel, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(n.root, "state/latency.json")); !os.IsNotExist(err) {
		t.Errorf("state file left: %v", err)
	}
}

func TestKilledTunerIsRestartedAndRestoresTheTrueOriginals(t *testing.T) {
	n := newNode(t)
	n.settingsFile(t, settings)
	first := n.start(t)
	first.next(t, "applied", applied)
	_ = first.stop(t, syscall.SIGKILL) // no restore: the node stays tuned

	second := n.start(t)
	r := second.next(t, "applied", applied)
	for _, s := range r.Settings {
		if s.Name == "net.core.busy_poll" && s.Original != "0" {
			t.Errorf("the restarted tuner took its predecessor's value for the original: %+v", s)
		}
	}
	if err := second.stop(t, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := n.read(t, "proc/sys/net/core/busy_poll"); got != "0" {
		t.Errorf("busy_poll = %q, want the true original 0", got)
	}
	if got := n.read(t, "proc/sys/vm/swappiness"); got != "60" {
		t.Errorf("swappiness = %q, want the true original 60", got)
	}
}

func TestTunerWaitsForTheSettingsOfItsGeneration(t *testing.T) {
	n := newNode(t)
	old := settings
	old.Generation = 2
	n.settingsFile(t, old)
	tu := n.start(t, "--settings-wait=20s")
	time.Sleep(300 * time.Millisecond)
	if got := n.read(t, "proc/sys/vm/swappiness"); got != "60" {
		t.Fatalf("the tuner applied another generation's settings: swappiness %q", got)
	}
	n.settingsFile(t, settings) // the ConfigMap update arrives
	if r := tu.next(t, "applied", applied); !r.Tuned {
		t.Fatalf("%+v", r)
	}
	_ = tu.stop(t, syscall.SIGTERM)

	// Settings that never arrive end the tuner with an error report.
	n.settingsFile(t, old)
	tu = n.start(t, "--settings-wait=200ms")
	r := tu.next(t, "error", func(r tuning.Report) bool { return r.Phase == tuning.PhaseError })
	if !strings.Contains(r.Error, "generation 2") {
		t.Errorf("error report: %+v", r)
	}
	if err := <-tu.done; err == nil {
		t.Error("exit 0 without settings")
	}
}

// The tuner of a deleted profile restores what an earlier tuner left (one
// killed before it could restore), tries a failed restore again, and reports
// "restored" only once every original is back.
func TestTunerInRestoreModeConfirmsTheRestore(t *testing.T) {
	n := newNode(t)
	n.settingsFile(t, settings)
	first := n.start(t)
	first.next(t, "applied", applied)
	_ = first.stop(t, syscall.SIGKILL) // the node stays tuned, its originals in the state file

	// swappiness keeps nothing written to it for now.
	swappiness := filepath.Join(n.root, "proc/sys/vm/swappiness")
	if err := os.Remove(swappiness); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.DevNull, swappiness); err != nil {
		t.Fatal(err)
	}
	n.settingsFile(t, tuning.Config{Profile: "latency", Generation: 4, Restore: true})
	tu := n.start(t, "--generation=4")
	r := tu.next(t, "a failed restore", func(r tuning.Report) bool { return r.Phase == tuning.PhaseError })
	if r.Generation != 4 || !strings.Contains(r.Error, "1 original value(s) could not be restored") {
		t.Errorf("report: %+v", r)
	}
	if got := n.read(t, "proc/sys/net/core/busy_poll"); got != "0" {
		t.Errorf("busy_poll = %q, want its original 0 restored", got)
	}

	if err := os.Remove(swappiness); err != nil { // an admin mends the node
		t.Fatal(err)
	}
	n.write(t, "proc/sys/vm/swappiness", "10\n")
	r = tu.next(t, "restored", restored)
	if r.Error != "" {
		t.Errorf("restored with an error: %+v", r)
	}
	if got := n.read(t, "proc/sys/vm/swappiness"); got != "60" {
		t.Errorf("swappiness = %q, want its original 60", got)
	}
	if _, err := os.Stat(filepath.Join(n.root, "state/latency.json")); !os.IsNotExist(err) {
		t.Errorf("state file left: %v", err)
	}
	if err := tu.stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("exit of a tuner whose node is restored: %v", err)
	}
}
