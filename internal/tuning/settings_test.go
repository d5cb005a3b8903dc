package tuning

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

const (
	nlFile   = "preset network-latency (tuned network-latency/tuned.conf)"
	nlInc    = "preset network-latency (tuned latency-performance/tuned.conf, included by network-latency)"
	nlSeed   = "preset network-latency (seed 003 tcp_mem advice, values of GoogleCloudPlatform/hpc-tools mpi-tuning.sh --tcpmem)"
	tuneSpec = SourceSpec
)

func TestExpandNetworkLatencyWithProvenance(t *testing.T) {
	got, err := Expand(&benchv1.TuningProfileSpec{Preset: benchv1.PresetNetworkLatency})
	if err != nil {
		t.Fatal(err)
	}
	want := []Setting{
		{Governor, "performance", nlInc},
		{"kernel.hung_task_timeout_secs", "600", nlFile},
		{"kernel.nmi_watchdog", "0", nlFile},
		{"kernel.numa_balancing", "0", nlFile},
		{"kernel.timer_migration", "0", nlFile},
		{"net.core.busy_poll", "50", nlFile},
		{"net.core.busy_read", "50", nlFile},
		{"net.ipv4.tcp_fastopen", "3", nlFile},
		{"net.ipv4.tcp_rmem", "4096 87380 16777216", nlSeed},
		{"net.ipv4.tcp_wmem", "4096 16384 16777216", nlSeed},
		{THP, "never", nlFile},
		{"vm.dirty_background_ratio", "3", nlInc},
		{"vm.dirty_ratio", "10", nlInc},
		{"vm.stat_interval", "10", nlFile},
		{"vm.swappiness", "10", nlInc},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("network-latency (-want +got):\n%s", d)
	}
}

func TestExpandOtherPresets(t *testing.T) {
	for preset, want := range map[benchv1.TuningPreset]map[string]string{
		benchv1.PresetHPCCompute: {
			Governor: "performance", "vm.dirty_ratio": "10", "vm.dirty_background_ratio": "3", "vm.swappiness": "10",
			THP: "always", "vm.min_free_kbytes": "135168", "vm.zone_reclaim_mode": "1", "kernel.numa_balancing": "0",
			"net.core.busy_read": "50", "net.core.busy_poll": "50", "net.ipv4.tcp_fastopen": "3",
		},
		benchv1.PresetNetworkThroughput: {
			Governor: "performance", "vm.dirty_ratio": "40", "vm.dirty_background_ratio": "10", "vm.swappiness": "10",
			"net.ipv4.tcp_rmem": "4096 131072 16777216", "net.ipv4.tcp_wmem": "4096 16384 16777216",
		},
		benchv1.PresetThroughputPerformance: {
			Governor: "performance", "vm.dirty_ratio": "40", "vm.dirty_background_ratio": "10", "vm.swappiness": "10",
		},
	} {
		got, err := Expand(&benchv1.TuningProfileSpec{Preset: preset})
		if err != nil {
			t.Fatal(err)
		}
		values := map[string]string{}
		for _, s := range got {
			values[s.Name] = s.Value
			if !strings.HasPrefix(s.Source, "preset "+string(preset)+" (tuned ") {
				t.Errorf("%s %s: source %q", preset, s.Name, s.Source)
			}
		}
		if d := cmp.Diff(want, values); d != "" {
			t.Errorf("%s (-want +got):\n%s", preset, d)
		}
	}
}

func TestEveryPresetValueIsValidAndAllowed(t *testing.T) {
	for name, p := range presets {
		for _, s := range p.settings() {
			if err := Validate(s); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if r := refusal(s, false); r != "" {
				t.Errorf("%s: %s is refused: %s", name, s.Name, r)
			}
		}
	}
}

// A preset's value passes the allow-list; the same name with a value of
// the submitter's does not.
func TestOnlyThePresetsOwnValueSkipsTheAllowList(t *testing.T) {
	preset := Setting{Name: "vm.min_free_kbytes", Value: "135168", Source: "preset hpc-compute"}
	if r := refusal(preset, false); r != "" {
		t.Errorf("hpc-compute's own vm.min_free_kbytes is refused: %s", r)
	}
	for _, s := range []Setting{
		{Name: "vm.min_free_kbytes", Value: "8000000", Source: "preset hpc-compute"},
		{Name: "vm.min_free_kbytes", Value: "135168", Source: SourceSpec},
	} {
		if refusal(s, false) == "" {
			t.Errorf("%+v is allowed", s)
		}
	}
}

func TestSpecOverridesPreset(t *testing.T) {
	got, err := Expand(&benchv1.TuningProfileSpec{
		Preset:               benchv1.PresetHPCCompute,
		Sysctls:              []benchv1.Sysctl{{Name: "net.core.busy_poll", Value: "100"}, {Name: "net.ipv4.tcp_mem", Value: "16777216 16777216 16777216"}},
		CPU:                  &benchv1.CPUTuning{Governor: "schedutil", SMT: "off"},
		TransparentHugepages: "madvise",
	})
	if err != nil {
		t.Fatal(err)
	}
	bySpec := map[string]string{}
	for _, s := range got {
		if s.Source == tuneSpec {
			bySpec[s.Name] = s.Value
		}
	}
	want := map[string]string{
		"net.core.busy_poll": "100", "net.ipv4.tcp_mem": "16777216 16777216 16777216",
		Governor: "schedutil", SMT: "off", THP: "madvise",
	}
	if d := cmp.Diff(want, bySpec); d != "" {
		t.Errorf("spec settings (-want +got):\n%s", d)
	}
	if len(got) != 13 {
		t.Errorf("%d settings, want hpc-compute's 11 + SMT + tcp_mem", len(got))
	}
}

func TestExpandRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec benchv1.TuningProfileSpec
		want string
	}{
		{"nothing", benchv1.TuningProfileSpec{}, "sets nothing"},
		{"unknown preset", benchv1.TuningProfileSpec{Preset: "balanced"}, `unknown preset "balanced"`},
		{"governor as a sysctl", benchv1.TuningProfileSpec{Sysctls: []benchv1.Sysctl{{Name: Governor, Value: "performance"}}}, "use spec.cpu"},
		{"cpu.* sysctl", benchv1.TuningProfileSpec{Sysctls: []benchv1.Sysctl{{Name: "cpu.freq", Value: "1"}}}, "reserved for spec.cpu"},
		{"path in a name", benchv1.TuningProfileSpec{Sysctls: []benchv1.Sysctl{{Name: "net/../../etc", Value: "1"}}}, "not a sysctl name"},
		{"dot-dot name", benchv1.TuningProfileSpec{Sysctls: []benchv1.Sysctl{{Name: "net..core", Value: "1"}}}, "not a sysctl name"},
		{"tab in a value", benchv1.TuningProfileSpec{Sysctls: []benchv1.Sysctl{{Name: "net.core.busy_poll", Value: "1\t2"}}}, "numbers or words"},
		{"shell in a value", benchv1.TuningProfileSpec{Sysctls: []benchv1.Sysctl{{Name: "net.core.busy_poll", Value: "$(reboot)"}}}, "numbers or words"},
		{"twice", benchv1.TuningProfileSpec{Sysctls: []benchv1.Sysctl{{Name: "vm.swappiness", Value: "1"}, {Name: "vm.swappiness", Value: "2"}}}, "listed twice"},
		{"bad governor", benchv1.TuningProfileSpec{CPU: &benchv1.CPUTuning{Governor: "turbo"}}, `"turbo" is not one of`},
		{"bad THP", benchv1.TuningProfileSpec{TransparentHugepages: "sometimes"}, `"sometimes" is not one of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Expand(&tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestAllowList(t *testing.T) {
	for name, want := range map[string]string{
		"net.core.busy_poll":             "",
		"net.ipv4.tcp_mem":               "cut the node's pods off",
		"vm.swappiness":                  "",
		"kernel.sched_autogroup_enabled": "",
		"kernel.numa_balancing":          "",
		"kernel.timer_migration":         "",
		"kernel.panic":                   "allow-list",
		"kernel.core_pattern":            "whatever allowUnlistedSysctls says",
		"fs.file-max":                    "whatever allowUnlistedSysctls says",
		"net.ipv4.ip_forward":            "cut the node's pods off",
		// Gaps the review found: per-interface and default forwarding,
		// route_localnet, disable_ipv6, bridge netfilter, OOM panics, huge pages.
		"net.ipv4.conf.eth0.forwarding":       "cut the node's pods off",
		"net.ipv4.conf.default.forwarding":    "cut the node's pods off",
		"net.ipv6.conf.all.forwarding":        "cut the node's pods off",
		"net.ipv4.conf.all.route_localnet":    "cut the node's pods off",
		"net.ipv6.conf.eth0.disable_ipv6":     "cut the node's pods off",
		"net.bridge.bridge-nf-call-ip6tables": "cut the node's pods off",
		"vm.panic_on_oom":                     "take the node down",
		"vm.nr_hugepages":                     "take the node down",
		"net.ipv4.conf.eth0.rp_filter":        "cut the node's pods off",
		// Round three: the prefixes let these through.
		"vm.nr_hugepages_mempolicy":       "take the node down",
		"vm.min_free_kbytes":              "take the node down",
		"net.ipv4.conf.all.arp_ignore":    "cut the node's pods off",
		"net.netfilter.nf_conntrack_max":  "cut the node's pods off",
		"net.ipv4.conf.ens4.log_martians": "",
		"vm.drop_caches":                  "write-only action",
		Governor:                          "",
	} {
		got := refuse(name, false)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("refuse(%s) = %q, want %q", name, got, want)
		}
	}
	if r := refuse("kernel.panic", true); r != "" {
		t.Errorf("allowUnlisted still refuses kernel.panic: %s", r)
	}
	if r := refuse("vm.drop_caches", true); r == "" {
		t.Error("allowUnlisted lets an action through")
	}
	// The hard deny-list holds even when an admin allowed unlisted sysctls.
	for _, name := range []string{"kernel.modprobe", "kernel.core_pattern", "kernel.usermodehelper.bset", "fs.suid_dumpable", "kernel.yama.ptrace_scope", "kernel.sysrq"} {
		if r := refuse(name, true); !strings.Contains(r, "whatever allowUnlistedSysctls says") {
			t.Errorf("refuse(%s, allowUnlisted) = %q", name, r)
		}
	}
	if r := refuse("net.ipv4.conf.eth0.forwarding", true); r != "" {
		t.Errorf("an admin's allowUnlistedSysctls still refuses per-interface forwarding: %q", r)
	}
}

func TestNormaliseAndCompare(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"net.ipv4.tcp_rmem", "4096\t87380\t16777216\n", "4096 87380 16777216"},
		{"net.ipv4.tcp_rmem", "  4096   87380 16777216 ", "4096 87380 16777216"},
		{THP, "always [madvise] never\n", "madvise"},
		{THP, "never", "never"},
		{Governor, "performance\n", "performance"},
	} {
		if got := normalise(tc.name, tc.raw); got != tc.want {
			t.Errorf("normalise(%s, %q) = %q, want %q", tc.name, tc.raw, got, tc.want)
		}
	}
	if !same("050", "50") || same("1 2", "1 2 3") || same("a", "b") {
		t.Error("same() compares fields, numbers by value")
	}
	if !satisfied(SMT, "forceoff", "off") || satisfied(SMT, "on", "off") || satisfied(SMT, "notsupported", "on") {
		t.Error("satisfied(SMT)")
	}
}
