package nodefacts

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// layout writes files under a temporary root laid out like / .
func layout(t *testing.T, files map[string]string) Host {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Host{Root: root}
}

const cpuinfo = `processor	: 0
model name	: Intel(R) Xeon(R) CPU @ 3.10GHz
cpu MHz		: 3100.000

processor	: 1
cpu MHz		: 2900.000

processor	: 2
cpu MHz		: 1000.000
`

const route = `Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
ens4	0000800A	00000000	0001	0	0	0	0000F0FF	0	0	0
ens4	00000000	0100800A	0003	0	0	0	00000000	0	0	0
`

func TestReadWithoutCpufreq(t *testing.T) {
	h := layout(t, map[string]string{
		"sys/devices/system/cpu/vulnerabilities/meltdown":   "Mitigation: PTI\n",
		"sys/devices/system/cpu/vulnerabilities/spectre_v2": "Vulnerable\n",
		"sys/devices/system/cpu/smt/active":                 "0\n",
		"sys/fs/selinux/enforce":                            "0",
		"proc/net/route":                                    route,
		"sys/class/net/ens4/mtu":                            "1460\n",
		"proc/cpuinfo":                                      cpuinfo,
		"proc/self/status":                                  "Name:\tx\nCpus_allowed_list:\t0-1\n",
	})
	f := h.Read(nil)
	want := map[string]string{"meltdown": "Mitigation: PTI", "spectre_v2": "Vulnerable"}
	if !reflect.DeepEqual(f.Mitigations, want) {
		t.Errorf("mitigations %v, want %v", f.Mitigations, want)
	}
	if f.SELinux != "permissive" || f.SMTActive != "0" {
		t.Errorf("selinux %q smt %q", f.SELinux, f.SMTActive)
	}
	if f.MTU != 1460 || f.MTUInterface != "ens4" {
		t.Errorf("MTU %d of %q, want 1460 of ens4 (the default route's)", f.MTU, f.MTUInterface)
	}
	// CPUs 0-1 only: (3100+2900)/2, not CPU 2's 1000.
	if f.CPUMHz != 3000 || f.CPUMHzSource != "/proc/cpuinfo" || f.CPUs != "0-1" {
		t.Errorf("cpu MHz %v from %q over %q, want 3000 from /proc/cpuinfo over 0-1", f.CPUMHz, f.CPUMHzSource, f.CPUs)
	}
	if f.Governor != "" || f.ScalingMaxMHz != 0 {
		t.Errorf("cpufreq facts without cpufreq: %q %v", f.Governor, f.ScalingMaxMHz)
	}
}

func TestReadWithCpufreq(t *testing.T) {
	h := layout(t, map[string]string{
		"proc/cpuinfo": cpuinfo,
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq": "2000000\n",
		"sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq": "2500000\n",
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_max_freq": "3500000\n",
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": "performance\n",
		"sys/devices/system/cpu/intel_pstate/no_turbo":         "1\n",
		"sys/class/net/eth0/mtu":                               "8896\n",
	})
	f := h.Read([]int{1, 2})
	if f.CPUMHz != 2250 || f.CPUMHzSource != "scaling_cur_freq" {
		t.Errorf("cpu MHz %v from %q, want 2250 from scaling_cur_freq", f.CPUMHz, f.CPUMHzSource)
	}
	if f.ScalingMaxMHz != 3500 || f.Governor != "performance" || f.Boost != "0" {
		t.Errorf("max %v governor %q boost %q", f.ScalingMaxMHz, f.Governor, f.Boost)
	}
	if f.SELinux != "absent" || f.Mitigations != nil {
		t.Errorf("selinux %q mitigations %v on a host without them", f.SELinux, f.Mitigations)
	}
	// No route table: eth0, a pod's interface.
	if f.MTU != 8896 || f.MTUInterface != "eth0" {
		t.Errorf("MTU %d of %q", f.MTU, f.MTUInterface)
	}
	// One CPU without cpufreq: /proc/cpuinfo for all, never a mix.
	h = layout(t, map[string]string{
		"proc/cpuinfo": cpuinfo,
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq": "2000000\n",
	})
	if f := h.Read([]int{1, 2}); f.CPUMHz != 1950 || f.CPUMHzSource != "/proc/cpuinfo" {
		t.Errorf("cpu MHz %v from %q, want 1950 from /proc/cpuinfo", f.CPUMHz, f.CPUMHzSource)
	}
}

func TestReadThisMachine(t *testing.T) {
	f := Host{}.Read(nil)
	if f.CPUMHz <= 0 || f.CPUs == "" {
		t.Errorf("no frequency read here: %+v", f)
	}
	got, err := ParseLine([]byte("noise\n" + Line(f) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Errorf("the line does not round-trip:\n%+v\n%+v", got, f)
	}
}

func TestCPUInfoMHzErrors(t *testing.T) {
	for _, in := range []string{"", "processor: 0\n", "processor: x\ncpu MHz: 1\n", "processor: 0\ncpu MHz: fast\n", "processor: 0\ncpu MHz: -3\n"} {
		if _, err := CPUInfoMHz([]byte(in), nil); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	if _, err := CPUInfoMHz([]byte(cpuinfo), []int{7}); err == nil {
		t.Error("no error for a CPU /proc/cpuinfo does not list")
	}
}

func TestDefaultRouteInterface(t *testing.T) {
	if got, err := DefaultRouteInterface([]byte(route)); err != nil || got != "ens4" {
		t.Errorf("got %q, %v", got, err)
	}
	noDefault := strings.Join(strings.Split(route, "\n")[:2], "\n")
	if _, err := DefaultRouteInterface([]byte(noDefault)); err == nil {
		t.Error("no error without a default route")
	}
	if _, err := DefaultRouteInterface([]byte("../x 00000000 0 0 0 0 0 00000000\n")); err == nil {
		t.Error("a path taken for an interface")
	}
}

func TestSummary(t *testing.T) {
	for _, c := range []struct {
		in   map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"meltdown": "Not affected"}, "not affected"},
		{map[string]string{"meltdown": "Mitigation: PTI", "mds": "Not affected"}, "on"},
		{map[string]string{"meltdown": "Vulnerable", "spectre_v1": "Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers", "mds": "Not affected"}, "off"},
		{map[string]string{"meltdown": "Vulnerable", "spectre_v2": "Mitigation: Retpolines"}, "partly off: meltdown"},
	} {
		if got := Summary(c.in); got != c.want {
			t.Errorf("Summary(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseLineErrors(t *testing.T) {
	for _, in := range []string{"", "hello\n", LinePrefix + "{\n", LinePrefix + `{"cpu_mhz": -1}`, LinePrefix + `{"mtu": 99999999}`, LinePrefix + `{"extra": 1}`} {
		if _, err := ParseLine([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add([]byte(Line(Facts{CPUMHz: 2000, MTU: 1460, Mitigations: map[string]string{"mds": "Vulnerable"}})))
	f.Add([]byte(LinePrefix + `{"cpu_mhz": 1e400}`))
	f.Add([]byte(LinePrefix + `{"cpu_vulnerabilities": {}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseLine(b)
		if err != nil {
			return
		}
		again, err := ParseLine([]byte(Line(got)))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("facts %+v do not round-trip: %+v, %v", got, again, err)
		}
	})
}

func FuzzCPUInfoMHz(f *testing.F) {
	f.Add([]byte(cpuinfo))
	f.Add([]byte("processor: 0\ncpu MHz: NaN\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		mhz, err := CPUInfoMHz(b, nil)
		if err == nil && (mhz <= 0 || mhz != mhz) {
			t.Fatalf("frequency %v without an error", mhz)
		}
	})
}

func FuzzDefaultRouteInterface(f *testing.F) {
	f.Add([]byte(route))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, err := DefaultRouteInterface(b)
		if err == nil && (name == "" || strings.ContainsAny(name, "/.")) {
			t.Fatalf("interface %q", name)
		}
	})
}
