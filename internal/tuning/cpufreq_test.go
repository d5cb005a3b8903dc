package tuning

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// newCPUFreqRoot is a fake root whose CPUs have a cpufreq driver, laid out as
// the kernel does: cpuN/cpufreq is a link to cpufreq/policyN, which holds the
// scaling and cpuinfo limits in kHz. cpu3 is offline (SMT off): it keeps its
// link but the tuner leaves it alone. turbo is "cpufreq" (cpufreq/boost, 1 is
// on) or "intel_pstate" (intel_pstate/no_turbo, 0 is on).
func newCPUFreqRoot(t *testing.T, turbo string) *fakeRoot {
	t.Helper()
	r := newFakeRoot(t)
	cpus := filepath.Join(r.SysFS, "devices/system/cpu")
	// The fake root's governors are plain directories; cpufreq roots have links.
	for _, cpu := range []string{"cpu0", "cpu1", "cpu2", "cpu10"} {
		if err := os.RemoveAll(filepath.Join(cpus, cpu, "cpufreq")); err != nil {
			t.Fatal(err)
		}
	}
	for i, cpu := range []string{"cpu0", "cpu1", "cpu2", "cpu3"} {
		policy := filepath.Join(cpus, "cpufreq", "policy"+cpu[3:])
		for f, v := range map[string]string{
			"scaling_governor": "powersave\n", "scaling_max_freq": "3500000\n", "scaling_min_freq": "1000000\n",
			"cpuinfo_max_freq": "3500000\n", "cpuinfo_min_freq": "1000000\n",
		} {
			if i == 2 && f == "scaling_max_freq" {
				v = "3000000\n" // capped already by someone: its own original
			}
			writeFile(t, filepath.Join(policy, f), v)
		}
		if err := os.MkdirAll(filepath.Join(cpus, cpu), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../cpufreq/policy"+cpu[3:], filepath.Join(cpus, cpu, "cpufreq")); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(cpus, "cpu3/online"), "0\n")
	switch turbo {
	case boostCPUFreq:
		writeFile(t, filepath.Join(cpus, "cpufreq/boost"), "1\n")
	case boostIntelPState:
		writeFile(t, filepath.Join(cpus, "intel_pstate/no_turbo"), "0\n")
	}
	return r
}

// cpufreqFiles are the files a frequency tuning may touch, by path under sysfs.
func (r *fakeRoot) cpufreqFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, pattern := range []string{"devices/system/cpu/cpufreq/policy*/*", "devices/system/cpu/cpufreq/boost", "devices/system/cpu/intel_pstate/*"} {
		files, err := filepath.Glob(filepath.Join(r.SysFS, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[strings.TrimPrefix(f, r.SysFS)] = string(b)
		}
	}
	return out
}

func TestMaxFrequencyAndBoostApplyThenRestore(t *testing.T) {
	for _, tc := range []struct {
		turbo, file, offValue string
	}{
		{boostCPUFreq, "/devices/system/cpu/cpufreq/boost", "0\n"},
		{boostIntelPState, "/devices/system/cpu/intel_pstate/no_turbo", "1\n"},
	} {
		t.Run(tc.turbo, func(t *testing.T) {
			r := newCPUFreqRoot(t, tc.turbo)
			before := r.cpufreqFiles(t)
			settings := []Setting{
				{Name: MaxFrequency, Value: "2200000", Source: SourceSpec},
				{Name: Boost, Value: "off", Source: SourceSpec},
			}
			rep, err := Apply(r.Host, r.state, settings, false)
			if err != nil {
				t.Fatal(err)
			}
			want := []SettingReport{
				{Name: Boost, Requested: "off", Observed: "off", Original: "on", OK: true},
				{Name: MaxFrequency, Requested: "2200000", Observed: "2200000", Original: "cpu0=3500000 cpu1=3500000 cpu2=3000000", OK: true},
			}
			if d := cmp.Diff(want, rep.Settings); d != "" || !rep.Tuned {
				t.Errorf("applied report (tuned %v) (-want +got):\n%s", rep.Tuned, d)
			}
			after := r.cpufreqFiles(t)
			for _, p := range []string{"policy0", "policy1", "policy2"} {
				if got := after["/devices/system/cpu/cpufreq/"+p+"/scaling_max_freq"]; got != "2200000" {
					t.Errorf("%s scaling_max_freq = %q, want 2200000", p, got)
				}
			}
			if got := after["/devices/system/cpu/cpufreq/policy3/scaling_max_freq"]; got != "3500000\n" {
				t.Errorf("offline cpu3's scaling_max_freq changed to %q", got)
			}
			if got := after[tc.file]; strings.TrimSpace(got) != strings.TrimSpace(tc.offValue) {
				t.Errorf("%s = %q, want %q (turbo off)", tc.file, got, tc.offValue)
			}
			// A periodic check sees the values in place.
			if rep, err := Check(r.Host, r.state, settings, false); err != nil || !rep.Tuned {
				t.Errorf("check: %+v, %v", rep, err)
			}

			if rep, err = Restore(r.Host, r.state); err != nil || rep.Phase != PhaseRestored {
				t.Fatalf("restore: %+v, %v", rep, err)
			}
			restored := r.cpufreqFiles(t)
			for p, v := range before {
				if strings.TrimSpace(restored[p]) != strings.TrimSpace(v) {
					t.Errorf("after restore %s = %q, want its original %q", p, restored[p], v)
				}
			}
		})
	}
}

// A frequency the hardware cannot run at is reported, not written: the
// kernel would clamp it silently and the run would be labelled wrongly.
func TestMaxFrequencyOutsideTheHardwareRangeIsNotWritten(t *testing.T) {
	for _, tc := range []struct{ khz, want string }{
		{"4000000", "4000000 kHz is above cpuinfo_max_freq 3500000 kHz on 3 CPU(s) (cpu0, cpu1, cpu2): not written, the kernel would clamp it"},
		{"800000", "800000 kHz is below cpuinfo_min_freq 1000000 kHz on 3 CPU(s) (cpu0, cpu1, cpu2): not written"},
	} {
		r := newCPUFreqRoot(t, boostCPUFreq)
		before := r.cpufreqFiles(t)
		rep, err := Apply(r.Host, r.state, []Setting{{Name: MaxFrequency, Value: tc.khz, Source: SourceSpec}}, false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Tuned || len(rep.Settings) != 1 || rep.Settings[0].OK || !strings.Contains(rep.Settings[0].Error, tc.want) {
			t.Errorf("%s kHz: report %+v, want not tuned with %q", tc.khz, rep, tc.want)
		}
		if d := cmp.Diff(before, r.cpufreqFiles(t)); d != "" {
			t.Errorf("%s kHz was written (-before +after):\n%s", tc.khz, d)
		}
	}
}

// Most cloud VMs have no cpufreq driver: a spec that asks for a frequency or
// boost is told the node lacks it, as for the governor.
func TestFrequencyOnANodeWithoutCPUFreq(t *testing.T) {
	r := newFakeRoot(t) // governors only: no scaling_max_freq, no boost switch
	rep, err := Apply(r.Host, r.state, []Setting{
		{Name: Boost, Value: "on", Source: SourceSpec},
		{Name: MaxFrequency, Value: "2200000", Source: SourceSpec},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []SettingReport{
		{Name: Boost, Requested: "on", Error: "cpu.boost: not present on this node (neither cpufreq/boost nor intel_pstate/no_turbo: the cpufreq driver, if any, has no turbo switch)"},
		{Name: MaxFrequency, Requested: "2200000", Error: "cpu.max_freq_khz: not present on this node (no online CPU has cpufreq/scaling_max_freq: no cpufreq driver, as on most cloud VMs)"},
	}
	if d := cmp.Diff(want, rep.Settings); d != "" || rep.Tuned {
		t.Errorf("report (tuned %v) (-want +got):\n%s", rep.Tuned, d)
	}
}

func TestParseFrequency(t *testing.T) {
	for in, want := range map[string]int64{
		"2.2GHz": 2_200_000, "2200MHz": 2_200_000, "2200000kHz": 2_200_000, "1.5MHz": 1_500,
		"2.2000000GHz": 2_200_000, "0.8GHz": 800_000, "3.456789GHz": 3_456_789, "1MHz": 1_000,
	} {
		if got, err := ParseFrequency(in); err != nil || got != want {
			t.Errorf("ParseFrequency(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"1.0000001GHz":            "not a whole number of kHz",
		"0.5MHz":                  "between 1 MHz and 100 GHz",
		"200GHz":                  "between 1 MHz and 100 GHz",
		"99999999999999999999kHz": "above 100 GHz",
		"2.2 GHz":                 "unit GHz, MHz or kHz",
		"2.2ghz":                  "unit GHz, MHz or kHz",
		"2200000":                 "unit GHz, MHz or kHz",
	} {
		if _, err := ParseFrequency(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseFrequency(%q): %v, want an error saying %q", in, err, msg)
		}
	}
}

func TestExpandFrequencyAndBoost(t *testing.T) {
	got, err := Expand(&benchv1.TuningProfileSpec{CPU: &benchv1.CPUTuning{MaxFrequency: "2.2GHz", Boost: "off"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Setting{{Name: Boost, Value: "off", Source: SourceSpec}, {Name: MaxFrequency, Value: "2200000", Source: SourceSpec}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, spec := range []benchv1.TuningProfileSpec{
		{CPU: &benchv1.CPUTuning{MaxFrequency: "2.2THz"}},
		{Sysctls: []benchv1.Sysctl{{Name: MaxFrequency, Value: "2200000"}}},
	} {
		if _, err := Expand(&spec); err == nil {
			t.Errorf("%+v expanded", spec)
		}
	}
	if err := Validate(Setting{Name: MaxFrequency, Value: "02200000"}); err == nil {
		t.Error("a frequency that is not a plain kHz number validated")
	}
}

// Units become paths: a state file edited to point a frequency elsewhere is refused.
func TestStateFileWithAnUnsafeFrequencyUnitIsRefused(t *testing.T) {
	for _, o := range []string{
		`{"name":"cpu.max_freq_khz","unit":"../../../../etc","value":"1"}`,
		`{"name":"cpu.boost","unit":"cpu0","value":"on"}`,
	} {
		r := newFakeRoot(t)
		writeFile(t, r.state.Path, `{"owner":"someone","originals":[`+o+`]}`)
		if _, err := Restore(r.Host, r.state); err == nil || !strings.Contains(err.Error(), "state file") {
			t.Errorf("%s: restore gave %v, want the state file refused", o, err)
		}
	}
}
