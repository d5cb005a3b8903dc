package tuning

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var latency = []Setting{
	{Name: SMT, Value: "off", Source: SourceSpec},
	{Name: Governor, Value: "performance", Source: SourceSpec},
	{Name: THP, Value: "never", Source: SourceSpec},
	{Name: "net.core.busy_poll", Value: "50", Source: SourceSpec},
	{Name: "net.ipv4.tcp_rmem", Value: "4096 87380 16777216", Source: SourceSpec},
	{Name: "vm.swappiness", Value: "10", Source: SourceSpec},
}

func TestApplyThenRestoreBringsEveryOriginalBack(t *testing.T) {
	r := newFakeRoot(t)
	before := r.snapshot(t)

	rep, err := Apply(r.Host, r.state, latency, false)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Tuned || rep.Phase != PhaseApplied {
		t.Fatalf("not tuned: %+v", rep)
	}
	want := []SettingReport{
		{Name: SMT, Requested: "off", Observed: "off", Original: "on", OK: true},
		{Name: Governor, Requested: "performance", Observed: "performance", Original: "cpu0=powersave cpu1=powersave cpu2=schedutil cpu10=powersave", OK: true},
		{Name: THP, Requested: "never", Observed: "never", Original: "madvise", OK: true},
		{Name: "net.core.busy_poll", Requested: "50", Observed: "50", Original: "0", OK: true},
		{Name: "net.ipv4.tcp_rmem", Requested: "4096 87380 16777216", Observed: "4096 87380 16777216", Original: "4096 131072 6291456", OK: true},
		{Name: "vm.swappiness", Requested: "10", Observed: "10", Original: "60", OK: true},
	}
	if d := cmp.Diff(want, rep.Settings); d != "" {
		t.Errorf("applied report (-want +got):\n%s", d)
	}
	for _, cpu := range []string{"cpu0", "cpu1", "cpu2", "cpu10"} {
		if got := r.value(t, Governor, cpu); got != "performance" {
			t.Errorf("%s governor = %q", cpu, got)
		}
	}

	rep, err = Restore(r.Host, r.state)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Phase != PhaseRestored {
		t.Fatalf("restore: %+v", rep)
	}
	for _, sr := range rep.Settings {
		if !sr.OK {
			t.Errorf("%s not restored: %+v", sr.Name, sr)
		}
	}
	if d := cmp.Diff(before, r.snapshot(t)); d != "" {
		t.Errorf("after restore, the node differs from before (-before +after):\n%s", d)
	}
	if _, err := os.Stat(r.state.Path); !os.IsNotExist(err) {
		t.Errorf("state file still there after a full restore: %v", err)
	}
}

func TestStateHoldsOriginalsBeforeAnyChange(t *testing.T) {
	r := newFakeRoot(t)
	if _, err := Apply(r.Host, r.state, latency, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.state.Path)
	if err != nil {
		t.Fatal(err)
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.Owner != "tuner-1" {
		t.Errorf("owner = %q", st.Owner)
	}
	if v, _ := st.original("vm.swappiness", ""); v != "60" {
		t.Errorf("recorded vm.swappiness original %q, want 60", v)
	}
	if v, _ := st.original(Governor, "cpu2"); v != "schedutil" {
		t.Errorf("recorded cpu2 governor original %q, want schedutil", v)
	}

	// A state that cannot be read stops the tuner before it changes anything.
	r2 := newFakeRoot(t)
	if err := os.MkdirAll(r2.state.Path, 0o755); err != nil { // a directory where the file should be
		t.Fatal(err)
	}
	before := r2.snapshot(t)
	if rep, err := Apply(r2.Host, r2.state, latency, false); err == nil || rep.Phase != PhaseError {
		t.Fatalf("Apply with an unreadable state: %+v, %v", rep, err)
	}
	if d := cmp.Diff(before, r2.snapshot(t)); d != "" {
		t.Errorf("the node changed although the originals could not be kept:\n%s", d)
	}
}

func TestRestartedTunerRestoresTheTrueOriginals(t *testing.T) {
	r := newFakeRoot(t)
	before := r.snapshot(t)
	if _, err := Apply(r.Host, r.state, latency, false); err != nil {
		t.Fatal(err)
	}
	// The tuner dies without restoring; its successor starts on the tuned node
	// with a new owner id, the same settings minus vm.swappiness.
	next := StateFile{Path: r.state.Path, Owner: "tuner-2"}
	rep, err := Apply(r.Host, next, latency[:5], false)
	if err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Settings {
		if sr.Name == "net.core.busy_poll" && sr.Original != "0" {
			t.Errorf("restarted tuner recorded its own value as original: %+v", sr)
		}
	}
	if got := r.value(t, "vm.swappiness", ""); got != "60" {
		t.Errorf("vm.swappiness, no longer asked for, is %q, want its original 60 back", got)
	}
	// The first tuner, stopping late, must not undo its successor's work.
	if rep, err := Restore(r.Host, r.state); err != nil || len(rep.Settings) != 0 || !strings.Contains(rep.Error, "tuner-2") {
		t.Fatalf("old owner's restore: %+v, %v", rep, err)
	}
	if got := r.value(t, "net.core.busy_poll", ""); got != "50" {
		t.Fatalf("old owner's restore changed busy_poll to %q", got)
	}
	if _, err := Restore(r.Host, next); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, r.snapshot(t)); d != "" {
		t.Errorf("after the restarted tuner restored (-before +after):\n%s", d)
	}
}

func TestStateOfAnEarlierBootIsDiscarded(t *testing.T) {
	r := newFakeRoot(t)
	boot := filepath.Join(r.ProcSys, "kernel/random/boot_id")
	writeFile(t, boot, "boot-1\n")
	if _, err := Apply(r.Host, r.state, latency[3:4], false); err != nil {
		t.Fatal(err)
	}
	// The node reboots: busy_poll is back to its boot default, which an admin
	// has since changed to 5.
	writeFile(t, boot, "boot-2\n")
	writeFile(t, r.path("net.core.busy_poll", ""), "5\n")
	rep, err := Apply(r.Host, r.state, latency[3:4], false)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Settings[0].Original; got != "5" {
		t.Errorf("original after a reboot = %q, want 5 (the old state is stale)", got)
	}
}

func TestRefusedKeysAreNotWritten(t *testing.T) {
	r := newFakeRoot(t)
	settings := []Setting{
		{Name: "kernel.panic", Value: "10", Source: SourceSpec},
		{Name: "vm.drop_caches", Value: "3", Source: SourceSpec},
		{Name: "vm.swappiness", Value: "10", Source: SourceSpec},
	}
	rep, err := Apply(r.Host, r.state, settings, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tuned {
		t.Error("tuned although keys were refused")
	}
	var refused []string
	for _, rf := range rep.Refused {
		refused = append(refused, rf.Name)
	}
	if d := cmp.Diff([]string{"kernel.panic", "vm.drop_caches"}, refused); d != "" {
		t.Errorf("refused (-want +got):\n%s", d)
	}
	if got := r.value(t, "kernel.panic", ""); got != "0" {
		t.Errorf("refused kernel.panic was written: %q", got)
	}
	if got := r.value(t, "vm.swappiness", ""); got != "10" {
		t.Errorf("allowed vm.swappiness = %q", got)
	}

	// Opting in lets kernel.panic through; an action stays refused.
	rep, err = Apply(r.Host, r.state, settings, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 1 || rep.Refused[0].Name != "vm.drop_caches" {
		t.Errorf("refused with allowUnlisted: %+v", rep.Refused)
	}
	if got := r.value(t, "kernel.panic", ""); got != "10" {
		t.Errorf("kernel.panic with allowUnlisted = %q", got)
	}
}

func TestMissingKeys(t *testing.T) {
	r := newFakeRoot(t)
	rep, err := Apply(r.Host, r.state, []Setting{
		{Name: "net.core.netdev_budget_usecs", Value: "1", Source: SourceSpec},
		{Name: "net.ipv4.tcp_notsent_lowat", Value: "1", Source: "preset x"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	spec, preset := rep.Settings[0], rep.Settings[1]
	if spec.OK || !strings.Contains(spec.Error, "not present on this node") {
		t.Errorf("a key the spec asks for and the node lacks: %+v", spec)
	}
	if !preset.OK || !preset.Skipped {
		t.Errorf("a preset's key the node lacks should be skipped, as tuned does: %+v", preset)
	}
}

func TestValueThatDoesNotStickIsAMismatch(t *testing.T) {
	r := newFakeRoot(t)
	p := r.path("vm.swappiness", "")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.DevNull, p); err != nil {
		t.Fatal(err)
	}
	rep, err := Apply(r.Host, r.state, latency[5:], false)
	if err != nil {
		t.Fatal(err)
	}
	if sr := rep.Settings[0]; sr.OK || sr.Observed != "" || rep.Tuned {
		t.Errorf("a value that reads back empty: %+v", rep)
	}
}

func TestCheckReportsDriftWithoutWriting(t *testing.T) {
	r := newFakeRoot(t)
	if _, err := Apply(r.Host, r.state, latency, false); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.path("vm.swappiness", ""), "30\n") // someone changes it
	rep, err := Check(r.Host, r.state, latency, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tuned {
		t.Error("tuned despite drift")
	}
	last := rep.Settings[len(rep.Settings)-1]
	if last.Name != "vm.swappiness" || last.OK || last.Observed != "30" || last.Original != "60" {
		t.Errorf("drifted setting: %+v", last)
	}
	if got := r.value(t, "vm.swappiness", ""); got != "30" {
		t.Errorf("Check wrote: %q", got)
	}
}

func TestAKeyHeldByAnotherProfileIsNotTouched(t *testing.T) {
	r := newFakeRoot(t)
	if _, err := Apply(r.Host, r.state, latency[3:4], false); err != nil {
		t.Fatal(err)
	}
	other := StateFile{Path: filepath.Join(filepath.Dir(r.state.Path), "q.json"), Owner: "tuner-q"}
	rep, err := Apply(r.Host, other, []Setting{{Name: "net.core.busy_poll", Value: "100", Source: SourceSpec}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if sr := rep.Settings[0]; sr.OK || !strings.Contains(sr.Error, "TuningProfile p") {
		t.Errorf("second profile on the same key: %+v", sr)
	}
	if got := r.value(t, "net.core.busy_poll", ""); got != "50" {
		t.Errorf("busy_poll = %q, want p's 50", got)
	}
}

func TestSMTOffIsSatisfiedWithoutSiblings(t *testing.T) {
	r := newFakeRoot(t)
	writeFile(t, r.path(SMT, ""), "notsupported\n")
	rep, err := Apply(r.Host, r.state, latency[:1], false)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Tuned || rep.Settings[0].Observed != "notsupported" {
		t.Errorf("SMT off on a node without SMT: %+v", rep)
	}
	if _, err := Restore(r.Host, r.state); err != nil {
		t.Fatal(err)
	}
	if got := r.value(t, SMT, ""); got != "notsupported" {
		t.Errorf("smt control = %q", got)
	}
}

func TestGovernorSkipsOfflineCPUs(t *testing.T) {
	r := newFakeRoot(t)
	writeFile(t, filepath.Join(r.SysFS, "devices/system/cpu/cpu1/online"), "0\n")
	targets, err := r.targets(Governor)
	if err != nil {
		t.Fatal(err)
	}
	var units []string
	for _, tg := range targets {
		units = append(units, tg.unit)
	}
	if d := cmp.Diff([]string{"cpu0", "cpu2", "cpu10"}, units); d != "" {
		t.Errorf("governor targets (-want +got):\n%s", d)
	}
}

func TestAKeyRefusedNowIsRestored(t *testing.T) {
	r := newFakeRoot(t)
	panic10 := []Setting{{Name: "kernel.panic", Value: "10", Source: SourceSpec}}
	if _, err := Apply(r.Host, r.state, panic10, true); err != nil {
		t.Fatal(err)
	}
	// The profile no longer opts in: the key it set is put back.
	rep, err := Apply(r.Host, r.state, panic10, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 1 {
		t.Errorf("refused: %+v", rep.Refused)
	}
	if got := r.value(t, "kernel.panic", ""); got != "0" {
		t.Errorf("kernel.panic = %q, want its original 0 back", got)
	}
}

// A state file edited behind the tuner's back (names and units become
// paths) is refused when loaded, before anything is restored from it.
func TestStateFileWithAnUnsafeOriginalIsRefused(t *testing.T) {
	for _, o := range []string{
		`{"name":"cpu.governor","unit":"../../../../etc","value":"x"}`,
		`{"name":"kernel/../../etc/passwd","value":"x"}`,
		`{"name":"net.core.busy_poll","unit":"cpu0","value":"0"}`,
	} {
		r := newFakeRoot(t)
		writeFile(t, r.state.Path, `{"owner":"someone","originals":[`+o+`]}`)
		_, err := Restore(r.Host, r.state)
		if err == nil || !strings.Contains(err.Error(), "state file") {
			t.Errorf("%s: restore gave %v, want the state file refused", o, err)
		}
	}
}
