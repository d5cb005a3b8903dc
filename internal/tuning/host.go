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

// target is one file of a setting: one per online CPU for the governor, one
// for anything else.
type target struct {
	unit string // "cpu3" for the governor, "" otherwise
	path string
}

// path is the file of a validated setting; unit names the CPU of a governor.
func (h Host) path(name, unit string) string {
	switch name {
	case Governor:
		return filepath.Join(h.sysFS(), "devices/system/cpu", unit, "cpufreq/scaling_governor")
	case SMT:
		return filepath.Join(h.sysFS(), "devices/system/cpu/smt/control")
	case THP:
		return filepath.Join(h.sysFS(), "kernel/mm/transparent_hugepage/enabled")
	}
	return filepath.Join(h.procSys(), strings.ReplaceAll(name, ".", "/"))
}

// targets resolves a validated setting to its files.
func (h Host) targets(name string) ([]target, error) {
	if name == Governor {
		return h.governors()
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

// governors are the scaling_governor files of the online CPUs, in CPU order.
func (h Host) governors() ([]target, error) {
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
			continue // offline (SMT off): it has no governor of its own to set
		}
		gov := h.path(Governor, cpu)
		if _, err := os.Stat(gov); err == nil {
			out = append(out, target{unit: cpu, path: gov})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w (no online CPU has cpufreq/scaling_governor: no cpufreq driver, as on most cloud VMs)", Governor, errMissing)
	}
	sort.Slice(out, func(i, j int) bool { return cpuNumber(out[i].unit) < cpuNumber(out[j].unit) })
	return out, nil
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
	return normalise(name, string(b)), nil
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
