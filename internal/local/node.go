package local

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// NodeInfo is nodes.json: what the figures were measured on.
type NodeInfo struct {
	Hostname    string `json:"hostname"`
	MachineType string `json:"machine_type"`
	Kernel      string `json:"kernel,omitempty"`
	CPUModel    string `json:"cpu_model,omitempty"`
	CPUs        int    `json:"cpus"`
	SMTActive   string `json:"smt_active,omitempty"`
	THP         string `json:"transparent_hugepage,omitempty"`
}

// readNodeInfo reads this machine's facts from /proc and /sys; missing files
// leave fields empty.
func readNodeInfo() NodeInfo {
	host, _ := os.Hostname()
	n := NodeInfo{Hostname: host, MachineType: "local", CPUs: runtime.NumCPU()}
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
