package tuning

import (
	"regexp"
	"strings"
)

// allowList is the one list of sysctls a TuningProfile may set without
// allowUnlistedSysctls: exact names, and names with <iface> where an
// interface's name (or all, default) stands. Each says why a benchmark node
// survives any value of it and its restore reaches the node. Left out on
// purpose, as values of them stall the node's own connections: tcp_mem,
// tcp_adv_win_scale (negative: zero windows), netdev_max_backlog (veth and
// loopback queue there), somaxconn, optmem_max, the keepalive timers. The tuner
// checks it (Allowed) and the CRD's rule is generated from it
// (AllowListRule, written by hack/sysctlrule in make generate).
var allowList = []struct{ name, why string }{
	{"net.core.busy_poll", "microseconds a poll spins: costs CPU only"},
	{"net.core.busy_read", "microseconds a read spins: costs CPU only"},
	{"net.core.rmem_default", "default socket receive buffer; TCP and UDP stay under tcp_mem and udp_mem"},
	{"net.core.rmem_max", "largest receive buffer a socket may ask for; bounded by tcp_mem and udp_mem"},
	{"net.core.wmem_default", "default socket send buffer; bounded by tcp_mem and udp_mem"},
	{"net.core.wmem_max", "largest send buffer a socket may ask for; bounded by tcp_mem and udp_mem"},
	{"net.core.netdev_budget", "packets one softirq round takes: latency against throughput"},
	{"net.core.netdev_budget_usecs", "time one softirq round takes: latency against throughput"},
	{"net.ipv4.tcp_rmem", "per-socket TCP receive buffers (seed 003); the kernel keeps a minimum, and tcp_mem (not listed: a tiny one stalls every connection) bounds the total"},
	{"net.ipv4.tcp_wmem", "per-socket TCP send buffers (seed 003); the global tcp_mem still bounds them"},
	{"net.ipv4.tcp_fastopen", "TCP fast open for clients and servers: connection setup only"},
	{"net.ipv4.tcp_congestion_control", "only an algorithm the kernel has loaded is accepted"},
	{"net.ipv4.tcp_mtu_probing", "path MTU probing: a fallback for black holes"},
	{"net.ipv4.tcp_timestamps", "TCP option: per-connection behaviour only"},
	{"net.ipv4.tcp_sack", "TCP option: per-connection behaviour only"},
	{"net.ipv4.tcp_window_scaling", "TCP option: per-connection behaviour only"},
	{"net.ipv4.tcp_slow_start_after_idle", "congestion window after idle: throughput only"},
	{"net.ipv4.tcp_no_metrics_save", "route metrics cache: throughput only"},
	{"net.ipv4.tcp_autocorking", "small-write coalescing: latency against throughput"},
	{"net.ipv4.tcp_low_latency", "a no-op since Linux 4.14, kept for tuned's profiles"},
	{"net.ipv4.tcp_notsent_lowat", "unsent bytes before a socket is writable: latency only"},
	{"net.ipv4.tcp_limit_output_bytes", "bytes queued per TCP flow in the qdisc: latency against throughput"},
	{"net.ipv4.tcp_moderate_rcvbuf", "receive buffer auto-tuning: throughput only"},
	{"net.ipv4.tcp_ecn", "ECN negotiation: per-connection behaviour only"},
	{"net.ipv4.tcp_tw_reuse", "reuse of TIME_WAIT ports for new outgoing connections"},
	{"net.ipv4.tcp_fin_timeout", "how long orphaned FIN_WAIT_2 sockets stay"},
	{"net.ipv4.udp_rmem_min", "smallest UDP receive buffer under pressure; udp_mem still bounds the total"},
	{"net.ipv4.udp_wmem_min", "smallest UDP send buffer under pressure; udp_mem still bounds the total"},
	{"net.ipv4.conf.<iface>.log_martians", "logs impossible source addresses: logging only"},
	{"net.ipv4.neigh.<iface>.unres_qlen_bytes", "bytes queued while a neighbour resolves: a queue, not the table"},
	{"vm.swappiness", "how readily anonymous memory is swapped (tuned's profiles)"},
	{"vm.dirty_ratio", "share of memory dirty before writers block (tuned's profiles)"},
	{"vm.dirty_background_ratio", "share of memory dirty before write-back starts (tuned's profiles)"},
	{"vm.dirty_bytes", "dirty_ratio in bytes"},
	{"vm.dirty_background_bytes", "dirty_background_ratio in bytes"},
	{"vm.dirty_expire_centisecs", "age at which dirty data is written back"},
	{"vm.dirty_writeback_centisecs", "how often the write-back threads wake"},
	{"vm.dirtytime_expire_seconds", "age at which lazily updated timestamps are written"},
	{"vm.stat_interval", "how often VM statistics are folded (tuned's network-latency)"},
	{"vm.zone_reclaim_mode", "reclaim on the local NUMA node before another's (tuned's hpc-compute)"},
	{"vm.page-cluster", "pages read from swap at once"},
	{"kernel.numa_balancing", "automatic NUMA page migration (tuned's profiles)"},
	{"kernel.timer_migration", "timers moved to busy CPUs (tuned's network-latency)"},
	{"kernel.nmi_watchdog", "the hard-lockup detector (tuned's network-latency)"},
	{"kernel.hung_task_timeout_secs", "when a blocked task is reported (tuned's network-latency)"},
	{"kernel.sched_autogroup_enabled", "groups a session's tasks for fairness"},
	{"kernel.sched_migration_cost_ns", "cache-hot time of a task before migration (before Linux 5.13)"},
	{"kernel.sched_min_granularity_ns", "CFS's least slice (before Linux 5.13)"},
	{"kernel.sched_wakeup_granularity_ns", "CFS's wake-up preemption (before Linux 5.13)"},
	{"kernel.sched_latency_ns", "CFS's period (before Linux 5.13)"},
	{"kernel.sched_nr_migrate", "tasks moved per balancing pass"},
	{"kernel.sched_schedstats", "scheduler statistics: accounting only"},
}

// iface is an interface's name in a sysctl name (or all, default): what
// Validate accepts of a word, at most IFNAMSIZ-1 long.
const iface = "<iface>"

const ifaceRE = `[a-z0-9_-]{1,15}`

// allowListRE is the table's pattern entries as regular expressions.
var allowListRE = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, p := range allowListPatterns() {
		out = append(out, regexp.MustCompile(p))
	}
	return out
}()

// allowListPatterns are the entries with <iface>, as RE2 expressions (the
// same syntax in Go and in CEL's matches).
func allowListPatterns() []string {
	var out []string
	for _, a := range allowList {
		if before, after, ok := strings.Cut(a.name, iface); ok {
			out = append(out, "^"+dots(before)+ifaceRE+dots(after)+"$")
		}
	}
	return out
}

// dots quotes a name's dots as [.], which needs no backslash in a CEL string.
func dots(s string) string { return strings.ReplaceAll(s, ".", "[.]") }

// allowListNames are the exact entries.
func allowListNames() []string {
	var out []string
	for _, a := range allowList {
		if !strings.Contains(a.name, iface) {
			out = append(out, a.name)
		}
	}
	return out
}

// Allowed tells whether a sysctl is on the allow-list.
func Allowed(name string) bool {
	for _, a := range allowList {
		if a.name == name {
			return true
		}
	}
	for _, re := range allowListRE {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// AllowListRule is the TuningProfile CRD's CEL rule for the allow-list:
// every sysctl is on it unless allowUnlistedSysctls is set.
func AllowListRule() string {
	terms := []string{"s.name in ['" + strings.Join(allowListNames(), "', '") + "']"}
	for _, p := range allowListPatterns() {
		terms = append(terms, "s.name.matches('"+p+"')")
	}
	return "(has(self.allowUnlistedSysctls) && self.allowUnlistedSysctls) || !has(self.sysctls) || self.sysctls.all(s, " + strings.Join(terms, " || ") + ")"
}

// AllowListMessage is the rule's message.
const AllowListMessage = "sysctls off the tuner's allow-list (exact names, each with why a node survives it: README, Security) need allowUnlistedSysctls: true, which only the admin's allowUnlistedSysctlsGroups may set"
