package tuning

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/test/util"
)

// netnsSettings are real per-namespace sysctls, plus busy_poll, which the
// kernel keeps global: it exists only in the host's (initial) namespace,
// which is why the tuner runs with hostNetwork.
var netnsSettings = []Setting{
	{Name: "net.ipv4.tcp_fastopen", Value: "3", Source: SourceSpec},
	{Name: "net.ipv4.tcp_rmem", Value: "4096 87380 16777216", Source: SourceSpec},
	{Name: "net.ipv4.tcp_wmem", Value: "4096 16384 16777216", Source: SourceSpec},
	{Name: "net.ipv4.tcp_slow_start_after_idle", Value: "0", Source: SourceSpec},
	{Name: "net.ipv4.tcp_fin_timeout", Value: "30", Source: SourceSpec},
	{Name: "net.core.busy_poll", Value: "50", Source: SourceSpec},
}

// TestRealSysctlsInANewNetworkNamespace applies, reads back, and restores real
// net.* sysctls of the running kernel, in a network namespace of its own so
// that the machine's are never touched: the test binary runs itself again
// under `unshare -n`, and that run does the work.
func TestRealSysctlsInANewNetworkNamespace(t *testing.T) {
	hostBefore := rawValues(t, netnsSettings)
	if util.InOwnNetNS(t) {
		applyRestoreInThisNamespace(t)
		return
	}
	if after := rawValues(t, netnsSettings); !equalMaps(hostBefore, after) {
		t.Errorf("the host namespace's values changed:\nbefore %q\nafter  %q", hostBefore, after)
	}
}

// applyRestoreInThisNamespace applies and restores the settings on the
// kernel's own files of a network namespace that is not the machine's.
func applyRestoreInThisNamespace(t *testing.T) {
	_, err := os.Stat("/proc/sys/net/core/busy_poll")
	busyPollHere := err == nil
	before := rawValues(t, netnsSettings)
	if !strings.Contains(before["net.ipv4.tcp_rmem"], "\t") {
		t.Fatalf("the kernel prints tcp_rmem as %q: expected tabs", before["net.ipv4.tcp_rmem"])
	}
	h := Host{ProcSys: "/proc/sys", SysFS: t.TempDir()}
	sf := StateFile{Path: filepath.Join(t.TempDir(), "netns.json"), Owner: "first"}

	rep, err := Apply(h, sf, netnsSettings, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Settings {
		t.Logf("%s: requested %q observed %q original %q ok=%v %s", sr.Name, sr.Requested, sr.Observed, sr.Original, sr.OK, sr.Error)
		if sr.Name == "net.core.busy_poll" && !busyPollHere {
			if sr.OK || !strings.Contains(sr.Error, "not present on this node") {
				t.Errorf("busy_poll, absent from this namespace, must be reported as missing: %+v", sr)
			}
			continue
		}
		if !sr.OK || sr.Original != normalise(sr.Name, before[sr.Name]) {
			t.Errorf("%s: %+v (kernel had %q)", sr.Name, sr, before[sr.Name])
		}
	}
	// What the kernel now prints, read independently of the tuner.
	applied := rawValues(t, netnsSettings)
	for _, s := range netnsSettings {
		if s.Name == "net.core.busy_poll" && !busyPollHere {
			continue
		}
		if got := normalise(s.Name, applied[s.Name]); got != s.Value {
			t.Errorf("kernel has %s = %q after Apply, want %q", s.Name, applied[s.Name], s.Value)
		}
	}

	// A restarted tuner (new owner, the kernel already tuned) keeps the true
	// originals from the state file.
	next := StateFile{Path: sf.Path, Owner: "second"}
	rep, err = Apply(h, next, netnsSettings, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Settings {
		if sr.Error == "" && sr.Original != normalise(sr.Name, before[sr.Name]) {
			t.Errorf("restarted tuner: %s original %q, want %q", sr.Name, sr.Original, before[sr.Name])
		}
	}

	if rep, err = Restore(h, next); err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Settings {
		if !sr.OK {
			t.Errorf("restore %s: %+v", sr.Name, sr)
		}
	}
	// Every original is back, byte for byte as the kernel prints it.
	if after := rawValues(t, netnsSettings); !equalMaps(before, after) {
		t.Errorf("after Restore:\nbefore %q\nafter  %q", before, after)
	}
	if _, err := os.Stat(sf.Path); !os.IsNotExist(err) {
		t.Errorf("state file left after a full restore: %v", err)
	}
}

// rawValues reads the settings' files as the kernel prints them; a key this
// namespace lacks is "(absent)".
func rawValues(t *testing.T, settings []Setting) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range settings {
		b, err := os.ReadFile(filepath.Join("/proc/sys", strings.ReplaceAll(s.Name, ".", "/")))
		switch {
		case os.IsNotExist(err):
			out[s.Name] = "(absent)"
		case err != nil:
			t.Fatal(err)
		default:
			out[s.Name] = string(b)
		}
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
