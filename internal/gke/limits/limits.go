// Package limits writes down, once, the limits GKE documents for a node
// pool, each with the page that states it: the provider refuses what breaks
// them before asking GKE, test/fakegke refuses it as GKE does, and the
// BenchmarkPool CRD states the same rules in CEL (checked by internal/gke's
// tests).
package limits

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// CompactPlacementSeries are the machine series GKE places compactly:
// https://cloud.google.com/kubernetes-engine/docs/how-to/compact-placement#limitations
// ("Available only on C2, C2D, C3, C3D, C4A, C4D, C4N, H3, H4D, N2, N2D, and
// Z4D machine types", and with A100, L4 and H100 GPUs: A2, G2, A3).
var CompactPlacementSeries = []string{"a2", "a3", "c2", "c2d", "c3", "c3d", "c4a", "c4d", "c4n", "g2", "h3", "h4d", "n2", "n2d", "z4d"}

// Tier1Series and Tier1MinVCPUs: https://cloud.google.com/compute/docs/networking/configure-vm-with-high-bandwidth-configuration
// ("only supported on N2, N2D, C2, C2D, or C3 VMs that have at least 30
// vCPUs"; gVNIC required).
var Tier1Series = []string{"c2", "c2d", "c3", "n2", "n2d"}

// Tier1MinVCPUs is the fewest vCPUs a Tier_1 machine has.
const Tier1MinVCPUs = 30

// NoThreadsPerCore and SharedCore: https://cloud.google.com/compute/docs/instances/set-threads-per-core
// (T2D, T2A and the Arm C4A run one thread per core; shared-core machine
// types and those under 2 vCPUs cannot set it).
var (
	NoThreadsPerCore = []string{"c4a", "t2a", "t2d"}
	SharedCore       = []string{"e2-medium", "e2-micro", "e2-small", "f1-micro", "g1-small"}
)

// Sysctls is GKE's allow-list for linuxNodeConfig.sysctls, as the pinned
// google.container.v1 LinuxNodeConfig documents it (cloud.google.com/go/container
// v1.46.0), sorted.
var Sysctls = []string{
	"fs.aio-max-nr", "fs.file-max", "fs.inotify.max_user_instances", "fs.inotify.max_user_watches", "fs.nr_open",
	"kernel.dmesg_restrict", "kernel.kptr_restrict", "kernel.perf_event_paranoid", "kernel.sched_rt_runtime_us",
	"kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.softlockup_panic", "kernel.sysrq", "kernel.yama.ptrace_scope",
	"net.core.busy_poll", "net.core.busy_read", "net.core.netdev_max_backlog", "net.core.optmem_max",
	"net.core.rmem_default", "net.core.rmem_max", "net.core.somaxconn", "net.core.wmem_default", "net.core.wmem_max",
	"net.ipv4.tcp_congestion_control", "net.ipv4.tcp_ecn", "net.ipv4.tcp_max_orphans", "net.ipv4.tcp_max_tw_buckets",
	"net.ipv4.tcp_mtu_probing", "net.ipv4.tcp_rmem", "net.ipv4.tcp_syn_retries", "net.ipv4.tcp_tw_reuse",
	"net.ipv4.tcp_wmem",
	"net.netfilter.nf_conntrack_acct", "net.netfilter.nf_conntrack_buckets", "net.netfilter.nf_conntrack_max",
	"net.netfilter.nf_conntrack_tcp_timeout_close_wait", "net.netfilter.nf_conntrack_tcp_timeout_established",
	"net.netfilter.nf_conntrack_tcp_timeout_time_wait",
	"vm.dirty_background_bytes", "vm.dirty_background_ratio", "vm.dirty_bytes", "vm.dirty_expire_centisecs",
	"vm.dirty_ratio", "vm.dirty_writeback_centisecs", "vm.max_map_count", "vm.min_free_kbytes",
	"vm.overcommit_memory", "vm.overcommit_ratio", "vm.swappiness", "vm.vfs_cache_pressure",
	"vm.watermark_scale_factor",
}

// Series is the series of a machine type: "c3" for c3-highcpu-176.
func Series(machineType string) string {
	series, _, _ := strings.Cut(machineType, "-")
	return series
}

var vCPUsPattern = regexp.MustCompile(`^[a-z0-9]+-[a-z]+-([0-9]+)(-|$)`)

// VCPUs is the vCPU count a machine type's name gives (c3-highcpu-176: 176,
// n2-custom-32-65536: 32), 0 when the name gives none (e2-medium).
func VCPUs(machineType string) int {
	m := vCPUsPattern.FindStringSubmatch(machineType)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// CompactPlacement reports whether GKE places the machine type compactly.
func CompactPlacement(machineType string) bool {
	return slices.Contains(CompactPlacementSeries, Series(machineType))
}

// Tier1 reports whether GKE gives the machine type Tier_1 bandwidth (with gVNIC).
func Tier1(machineType string) bool {
	return slices.Contains(Tier1Series, Series(machineType)) && VCPUs(machineType) >= Tier1MinVCPUs
}

// ThreadsPerCore reports whether GKE can set threads per core on the machine type.
func ThreadsPerCore(machineType string) bool {
	return !slices.Contains(NoThreadsPerCore, Series(machineType)) && !slices.Contains(SharedCore, machineType) && VCPUs(machineType) >= 2
}

// Sysctl reports whether GKE's linuxNodeConfig accepts the sysctl.
func Sysctl(name string) bool {
	_, ok := slices.BinarySearch(Sysctls, name)
	return ok
}
