package nodefacts

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/topology"
)

// Facts is what Read finds on a node. Fields the node does not have stay
// empty.
type Facts struct {
	// Mitigations is every file of /sys/devices/system/cpu/vulnerabilities:
	// name -> the kernel's text ("Mitigation: PTI", "Vulnerable", ...).
	Mitigations map[string]string `json:"cpu_vulnerabilities,omitempty"`
	// SELinux is enforcing, permissive, or absent when no selinuxfs is
	// mounted where it was read (the kernel has SELinux off, or the
	// container does not see it).
	SELinux string `json:"selinux,omitempty"`
	// MTU is the MTU of MTUInterface, the interface of the default route
	// where it was read: a pod's eth0, or a hostNetwork pod's node interface.
	MTU          int    `json:"mtu,omitempty"`
	MTUInterface string `json:"mtu_interface,omitempty"`
	// Network is whose network namespace that is: "pod" (the pod network)
	// or "host" (a hostNetwork pod, or a local run), as the reader was told.
	Network string `json:"network,omitempty"`
	// CPUMHz is the effective frequency: the average over CPUs of cpufreq's
	// scaling_cur_freq, or of /proc/cpuinfo's "cpu MHz" without cpufreq
	// (CPUMHzSource says which).
	CPUMHz       float64 `json:"cpu_mhz,omitempty"`
	CPUMHzSource string  `json:"cpu_mhz_source,omitempty"`
	// CPUs is the list the frequency is averaged over: the reader's cpuset.
	CPUs string `json:"cpus_read,omitempty"`
	// ScalingMaxMHz, Governor and Boost are cpufreq's, where it is present
	// (the first of CPUs; Boost is cpufreq/boost or intel_pstate's no_turbo
	// turned around: "1" on).
	ScalingMaxMHz float64 `json:"scaling_max_mhz,omitempty"`
	Governor      string  `json:"governor,omitempty"`
	Boost         string  `json:"boost,omitempty"`
	// SMTActive is /sys/devices/system/cpu/smt/active.
	SMTActive string `json:"smt_active,omitempty"`
	// MachineID is the machine beneath the node: the DMI product UUID, or
	// /etc/machine-id where that cannot be read (MachineIDSource says
	// which); BootID is the running kernel's boot id. See Machine.
	MachineID       string `json:"machine_id,omitempty"`
	MachineIDSource string `json:"machine_id_source,omitempty"`
	BootID          string `json:"boot_id,omitempty"`
	// Read is when the facts were read.
	Read time.Time `json:"read"`
}

// Host is where the facts are read: the root of /sys and /proc.
type Host struct {
	// Root is "/" when empty.
	Root string
}

func (h Host) path(p string) string { return filepath.Join(cmp.Or(h.Root, "/"), p) }

// Read reads the facts. cpus are the CPUs to average the frequency over;
// nil reads them from /proc/self/status (Cpus_allowed_list), then all.
func (h Host) Read(cpus []int) Facts {
	f := Facts{Read: time.Now().UTC()}
	f.Mitigations = h.mitigations()
	f.SELinux = h.selinux()
	f.MTUInterface, f.MTU = h.mtu()
	f.SMTActive = h.trimmed("sys/devices/system/cpu/smt/active")
	h.machine(&f)
	if cpus == nil {
		cpus = h.allowedCPUs()
	}
	f.CPUs = topology.FormatList(cpus)
	h.frequency(&f, cpus)
	return f
}

func (h Host) trimmed(p string) string {
	b, err := os.ReadFile(h.path(p))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (h Host) mitigations() map[string]string {
	dir := h.path("sys/devices/system/cpu/vulnerabilities")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			out[e.Name()] = strings.TrimSpace(string(b))
		}
	}
	return out
}

// selinux reads /sys/fs/selinux/enforce: 1 enforcing, 0 permissive.
func (h Host) selinux() string {
	switch h.trimmed("sys/fs/selinux/enforce") {
	case "1":
		return "enforcing"
	case "0":
		return "permissive"
	case "":
		return "absent"
	}
	return "unknown"
}

// mtu is the default route's interface and its MTU; eth0 when there is no
// default route.
func (h Host) mtu() (string, int) {
	iface := "eth0"
	if b, err := os.ReadFile(h.path("proc/net/route")); err == nil {
		if d, err := DefaultRouteInterface(b); err == nil {
			iface = d
		}
	}
	n, err := strconv.Atoi(h.trimmed(filepath.Join("sys/class/net", iface, "mtu")))
	if err != nil {
		return "", 0
	}
	return iface, n
}

// allowedCPUs is Cpus_allowed_list of /proc/self/status, or every CPU of
// /sys/devices/system/cpu/online.
func (h Host) allowedCPUs() []int {
	if b, err := os.ReadFile(h.path("proc/self/status")); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && k == "Cpus_allowed_list" {
				if ids, err := topology.ParseList(strings.TrimSpace(v)); err == nil {
					return ids
				}
			}
		}
	}
	ids, _ := topology.ParseList(h.trimmed("sys/devices/system/cpu/online"))
	return ids
}

// frequency fills the frequency facts: cpufreq where every CPU has it,
// /proc/cpuinfo otherwise.
func (h Host) frequency(f *Facts, cpus []int) {
	var sum float64
	n := 0
	for _, c := range cpus {
		khz, err := strconv.ParseFloat(h.trimmed(fmt.Sprintf("sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c)), 64)
		if err != nil || !(khz > 0 && khz < 1e9) {
			break
		}
		sum += khz / 1000
		n++
	}
	if n > 0 && n == len(cpus) {
		f.CPUMHz, f.CPUMHzSource = round(sum/float64(n)), "scaling_cur_freq"
	} else if b, err := os.ReadFile(h.path("proc/cpuinfo")); err == nil {
		if mhz, err := CPUInfoMHz(b, cpus); err == nil {
			f.CPUMHz, f.CPUMHzSource = mhz, "/proc/cpuinfo"
		}
	}
	if len(cpus) == 0 {
		return
	}
	dir := fmt.Sprintf("sys/devices/system/cpu/cpu%d/cpufreq/", cpus[0])
	if khz, err := strconv.ParseFloat(h.trimmed(dir+"scaling_max_freq"), 64); err == nil && khz > 0 && khz < 1e9 {
		f.ScalingMaxMHz = round(khz / 1000)
	}
	f.Governor = h.trimmed(dir + "scaling_governor")
	f.Boost = h.trimmed("sys/devices/system/cpu/cpufreq/boost")
	if f.Boost == "" {
		switch h.trimmed("sys/devices/system/cpu/intel_pstate/no_turbo") {
		case "0":
			f.Boost = "1"
		case "1":
			f.Boost = "0"
		}
	}
}

// round keeps one decimal of a frequency in MHz.
func round(mhz float64) float64 { return math.Round(mhz*10) / 10 }

// errNoMHz: /proc/cpuinfo lists none of the CPUs with a frequency.
var errNoMHz = errors.New(`/proc/cpuinfo has no "cpu MHz" for the CPUs`)

// CPUInfoMHz is the average "cpu MHz" of /proc/cpuinfo over cpus (every
// processor listed when cpus is empty).
func CPUInfoMHz(cpuinfo []byte, cpus []int) (float64, error) {
	want := map[int]bool{}
	for _, c := range cpus {
		want[c] = true
	}
	var sum float64
	n, proc := 0, -1
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			p, err := strconv.Atoi(v)
			if err != nil {
				return 0, fmt.Errorf("/proc/cpuinfo: processor %q is not a number", v)
			}
			proc = p
		case "cpu MHz":
			mhz, err := strconv.ParseFloat(v, 64)
			if err != nil || !(mhz >= 1 && mhz < 1e6) { // under 1 MHz is no CPU's (and would round to 0)
				return 0, fmt.Errorf("/proc/cpuinfo: cpu MHz %q of processor %d is not a frequency", v, proc)
			}
			if proc >= 0 && (len(want) == 0 || want[proc]) {
				sum += mhz
				n++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, errNoMHz
	}
	return round(sum / float64(n)), nil
}

// DefaultRouteInterface is the interface of the first default route
// (destination 00000000, mask 00000000) of /proc/net/route.
func DefaultRouteInterface(route []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(route))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[0] == "Iface" {
			continue
		}
		if f[1] == "00000000" && f[7] == "00000000" {
			if strings.ContainsAny(f[0], "/.") || f[0] == "" {
				return "", fmt.Errorf("/proc/net/route: %q is not an interface name", f[0])
			}
			return f[0], nil
		}
	}
	return "", errors.New("/proc/net/route has no default route")
}

// Summary is the mitigations in a few words: "off" when every vulnerability
// the CPU is affected by reads "Vulnerable" (mitigations=off), "on" when none
// does, else the vulnerable ones; "" when none are listed.
func Summary(mitigations map[string]string) string {
	if len(mitigations) == 0 {
		return ""
	}
	var vulnerable []string
	affected := 0
	for name, text := range mitigations {
		if text == "Not affected" {
			continue
		}
		affected++
		if strings.HasPrefix(text, "Vulnerable") {
			vulnerable = append(vulnerable, name)
		}
	}
	switch {
	case affected == 0:
		return "not affected"
	case len(vulnerable) == 0:
		return "on"
	case len(vulnerable) == affected:
		return "off"
	}
	sort.Strings(vulnerable)
	return "partly off: " + strings.Join(vulnerable, ", ")
}
