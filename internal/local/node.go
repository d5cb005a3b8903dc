package local

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// readNodeInfo reads this machine's facts from /proc and /sys; missing files
// leave fields empty.
func readNodeInfo() results.NodeInfo {
	host, _ := os.Hostname()
	n := results.NodeInfo{Hostname: host, MachineType: "local", CPUs: runtime.NumCPU()}
	n.Kernel = readTrimmed("/proc/sys/kernel/osrelease")
	n.SMTActive = readTrimmed("/sys/devices/system/cpu/smt/active")
	n.THP = readTrimmed("/sys/kernel/mm/transparent_hugepage/enabled")
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer func() { _ = f.Close() }()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				n.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return n
}

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
