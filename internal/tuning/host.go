package tuning

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Host is where a node's settings are read and written: /proc/sys and /sys,
// or a temporary directory laid out like them.
type Host struct {
	// ProcSys is /proc/sys when empty.
	ProcSys string
	// SysFS is /sys when empty.
	SysFS string
}

// errMissing marks a setting this node does not have: a sysctl this kernel
// (or, for per-namespace net.* keys, this network namespace) lacks, or a CPU
// without a cpufreq driver.
var errMissing = errors.New("not present on this node")

func (h Host) procSys() string { return cmp.Or(h.ProcSys, "/proc/sys") }
func (h Host) sysFS() string   { return cmp.Or(h.SysFS, "/sys") }

// target is one file of a setting: one per online CPU for the governor and
// the maximum frequency, one for anything else.
type target struct {
	unit string // "cpu3" for per-CPU settings, the driver for Boost, "" otherwise
	path string
}

// Boost's units: the driver whose file turns turbo on and off.
const (
	boostCPUFreq     = "cpufreq"      // cpufreq/boost: 1 is on (acpi-cpufreq, amd-pstate)
	boostIntelPState = "intel_pstate" // intel_pstate/no_turbo: 1 is off
)

// path is the file of a validated setting; unit names the CPU of a per-CPU
// setting, or Boost's driver.
func (h Host) path(name, unit string) string {
	cpus := filepath.Join(h.sysFS(), "devices/system/cpu")
	switch name {
	case Governor:
		return filepath.Join(cpus, unit, "cpufreq/scaling_governor")
	case MaxFrequency:
		return filepath.Join(cpus, unit, "cpufreq/scaling_max_freq")
	case Boost:
		if unit == boostIntelPState {
			return filepath.Join(cpus, "intel_pstate/no_turbo")
		}
		return filepath.Join(cpus, "cpufreq/boost")
	case SMT:
		return filepath.Join(cpus, "smt/control")
	case THP:
		return filepath.Join(h.sysFS(), "kernel/mm/transparent_hugepage/enabled")
	}
	return filepath.Join(h.procSys(), strings.ReplaceAll(name, ".", "/"))
}

// targets resolves a validated setting to its files.
func (h Host) targets(name string) ([]target, error) {
	switch name {
	case Governor, MaxFrequency:
		return h.perCPU(name)
	case Boost:
		return h.boost()
	}
	path := h.path(name, "")
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w (no %s)", name, errMissing, path)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory of sysctls, not one", name)
	}
	return []target{{path: path}}, nil
}

// perCPU are the cpufreq files of a per-CPU setting of the online CPUs, in
// CPU order.
func (h Host) perCPU(name string) ([]target, error) {
	dirs, err := filepath.Glob(filepath.Join(h.sysFS(), "devices/system/cpu/cpu[0-9]*"))
	if err != nil {
		return nil, err
	}
	var out []target
	for _, d := range dirs {
		cpu := filepath.Base(d)
		if _, err := strconv.Atoi(strings.TrimPrefix(cpu, "cpu")); err != nil {
			continue
		}
		if online, err := os.ReadFile(filepath.Join(d, "online")); err == nil && strings.TrimSpace(string(online)) == "0" {
			continue // offline (SMT off): it has no cpufreq policy of its own to set
		}
		file := h.path(name, cpu)
		if _, err := os.Stat(file); err == nil {
			out = append(out, target{unit: cpu, path: file})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w (no online CPU has cpufreq/%s: no cpufreq driver, as on most cloud VMs)",
			name, errMissing, filepath.Base(h.path(name, "cpu0")))
	}
	sort.Slice(out, func(i, j int) bool { return cpuNumber(out[i].unit) < cpuNumber(out[j].unit) })
	return out, nil
}

// boost is the file that turns turbo on and off: cpufreq/boost, or
// intel_pstate/no_turbo.
func (h Host) boost() ([]target, error) {
	for _, unit := range []string{boostCPUFreq, boostIntelPState} {
		if _, err := os.Stat(h.path(Boost, unit)); err == nil {
			return []target{{unit: unit, path: h.path(Boost, unit)}}, nil
		}
	}
	return nil, fmt.Errorf("%s: %w (neither cpufreq/boost nor intel_pstate/no_turbo: the cpufreq driver, if any, has no turbo switch)", Boost, errMissing)
}

// frequencyLimits are a CPU's cpuinfo_min_freq and cpuinfo_max_freq (kHz);
// ok is false when the driver does not tell them.
func (h Host) frequencyLimits(cpu string) (lo, hi int64, ok bool) {
	dir := filepath.Join(h.sysFS(), "devices/system/cpu", cpu, "cpufreq")
	var vals [2]int64
	for i, f := range []string{"cpuinfo_min_freq", "cpuinfo_max_freq"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return 0, 0, false
		}
		if vals[i], err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return vals[0], vals[1], true
}

// outOfRange says why a maximum frequency is not written to a CPU: the kernel
// would silently clamp a value outside the hardware's range. "" when in range
// (or the range is unknown).
func (h Host) outOfRange(cpu, khz string) string {
	want, err := strconv.ParseInt(khz, 10, 64)
	lo, hi, ok := h.frequencyLimits(cpu)
	switch {
	case err != nil || !ok:
		return ""
	case want > hi:
		return fmt.Sprintf("%d kHz is above cpuinfo_max_freq %d kHz", want, hi)
	case want < lo:
		return fmt.Sprintf("%d kHz is below cpuinfo_min_freq %d kHz", want, lo)
	}
	return ""
}

func cpuNumber(unit string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(unit, "cpu"))
	return n
}

// read returns a file's value, normalised for the setting.
func read(name, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	v := normalise(name, string(b))
	if name == Boost {
		v = boostState(path, v)
	}
	return v, nil
}

// boostState is Boost's file value as on or off: no_turbo is inverted.
func boostState(path, v string) string {
	on, off := "1", "0"
	if filepath.Base(path) == "no_turbo" {
		on, off = off, on
	}
	switch v {
	case on:
		return "on"
	case off:
		return "off"
	}
	return v
}

// fileValue is what to write to a setting's file for value: Boost's on or off
// as the file's 1 or 0.
func fileValue(name, path, value string) string {
	if name != Boost {
		return value
	}
	on := value == "on"
	if filepath.Base(path) == "no_turbo" {
		on = !on
	}
	if on {
		return "1"
	}
	return "0"
}

// write sets a file's value. It never creates a file: a sysctl that does not
// exist is an error, in /proc/sys and in a test's directory alike.
func write(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %q to %s: %w", value, path, err)
	}
	return nil
}

// normalise is a value as the kernel means it: sysctls with several numbers
// print them tab-separated ("4096\t87380\t16777216" for "4096 87380
// 16777216"); THP prints every choice with the current one bracketed
// ("always [madvise] never" is madvise).
func normalise(name, raw string) string {
	if name == THP {
		if i := strings.Index(raw, "["); i >= 0 {
			if j := strings.Index(raw[i:], "]"); j > 0 {
				return raw[i+1 : i+j]
			}
		}
	}
	return strings.Join(strings.Fields(raw), " ")
}

// smtInactive are the SMT control states in which no sibling thread runs.
var smtInactive = map[string]bool{"off": true, "forceoff": true, "notsupported": true}

// satisfied tells whether an observed value is what was asked for. SMT off
// is satisfied by any state without sibling threads: a VM with one thread
// per core reports notsupported.
func satisfied(name, observed, want string) bool {
	if name == SMT && want == "off" {
		return smtInactive[observed]
	}
	return same(observed, normalise(name, want))
}

// same tells whether two normalised values are equal, field by field, as
// numbers where both are numbers ("050" is 50).
func same(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i] == fb[i] {
			continue
		}
		x, errx := strconv.ParseInt(fa[i], 10, 64)
		y, erry := strconv.ParseInt(fb[i], 10, 64)
		if errx != nil || erry != nil || x != y {
			return false
		}
	}
	return true
}
