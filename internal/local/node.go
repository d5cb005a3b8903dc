package local

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/nodefacts"
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
	n.Facts = readFacts()
	// Counting needs CAP_NET_ADMIN: root can, anyone else says so.
	n.FirewallRules = results.FirewallUnknown
	if os.Geteuid() == 0 {
		if rules, err := nodefacts.FirewallRules(); err == nil {
			n.FirewallRules = strconv.Itoa(rules)
		}
	}
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

// readFacts reads this machine's facts over the CPUs this process may use;
// a local run is in the host's network namespace.
func readFacts() *nodefacts.Facts {
	f := nodefacts.Host{}.Read(nil)
	f.Network = "host"
	return &f
}

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
