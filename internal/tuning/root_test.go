package tuning

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeRoot is a temporary directory laid out like /proc/sys and /sys, with the
// values a fresh node prints (tabs between numbers, THP's bracketed choice).
type fakeRoot struct {
	Host
	state StateFile
}

// freshValues are a node's values before tuning, by path under the root.
var freshValues = map[string]string{
	"proc/sys/net/core/busy_poll":                           "0\n",
	"proc/sys/net/core/busy_read":                           "0\n",
	"proc/sys/net/ipv4/tcp_fastopen":                        "1\n",
	"proc/sys/net/ipv4/tcp_rmem":                            "4096\t131072\t6291456\n",
	"proc/sys/net/ipv4/tcp_wmem":                            "4096\t16384\t4194304\n",
	"proc/sys/vm/swappiness":                                "60\n",
	"proc/sys/vm/dirty_ratio":                               "20\n",
	"proc/sys/kernel/panic":                                 "0\n",
	"sys/kernel/mm/transparent_hugepage/enabled":            "always [madvise] never\n",
	"sys/devices/system/cpu/smt/control":                    "on\n",
	"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor":  "powersave\n",
	"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor":  "powersave\n",
	"sys/devices/system/cpu/cpu2/cpufreq/scaling_governor":  "schedutil\n",
	"sys/devices/system/cpu/cpu10/cpufreq/scaling_governor": "powersave\n",
	"sys/devices/system/cpu/cpu1/online":                    "1\n",
}

func newFakeRoot(t *testing.T) *fakeRoot {
	t.Helper()
	dir := t.TempDir()
	for rel, v := range freshValues {
		writeFile(t, filepath.Join(dir, rel), v)
	}
	return &fakeRoot{
		Host:  Host{ProcSys: filepath.Join(dir, "proc/sys"), SysFS: filepath.Join(dir, "sys")},
		state: StateFile{Path: filepath.Join(dir, "state/p.json"), Owner: "tuner-1"},
	}
}

func writeFile(t *testing.T, path, v string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
}

// value reads a setting's file (unit for a governor) as the tuner normalises it.
func (r *fakeRoot) value(t *testing.T, name, unit string) string {
	t.Helper()
	v, err := read(name, r.path(name, unit))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// snapshot is every file's normalised value, by path.
func (r *fakeRoot) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, base := range []string{r.ProcSys, r.SysFS} {
		err := filepath.Walk(base, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			name := ""
			if filepath.Base(p) == "enabled" {
				name = THP
			}
			out[p] = normalise(name, string(b))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}
