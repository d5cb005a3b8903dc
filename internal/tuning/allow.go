package tuning

import "strings"

// The allow-list: what a benchmark node may be tuned with unless a profile
// sets allowUnlistedSysctls.
//
//   - net.*: the network stack (socket buffers, busy polling, TCP options).
//   - vm.*: memory management (dirty ratios, swappiness, zone reclaim, ...).
//   - kernel.sched_*: scheduler tunables that are still sysctls.
//   - kernel.numa_balancing, kernel.timer_migration, kernel.nmi_watchdog,
//     kernel.hung_task_timeout_secs: the kernel.* keys tuned's profiles set.
//
// Two kinds of key are refused even under net.* and vm.*: actions, which a
// write triggers and which have no value to restore (always refused), and
// keys that cut a Kubernetes node off its pods (refused unless opted in).
var (
	allowedPrefixes = []string{"net.", "vm.", "kernel.sched_"}
	allowedKeys     = map[string]bool{
		"kernel.numa_balancing":         true,
		"kernel.timer_migration":        true,
		"kernel.nmi_watchdog":           true,
		"kernel.hung_task_timeout_secs": true,
	}
	// actions are write-only triggers.
	actions = map[string]bool{
		"vm.drop_caches":       true,
		"vm.compact_memory":    true,
		"vm.stat_refresh":      true,
		"net.ipv4.route.flush": true,
		"net.ipv6.route.flush": true,
	}
	// nodeBreakers stop pod networking.
	nodeBreakers = map[string]bool{
		"net.ipv4.ip_forward":                true,
		"net.ipv4.conf.all.forwarding":       true,
		"net.ipv6.conf.all.forwarding":       true,
		"net.bridge.bridge-nf-call-iptables": true,
	}
)

// Refusal says why a setting is not applied.
type Refusal struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// refuse says why a valid setting may not be applied, or nothing when it may.
func refuse(name string, allowUnlisted bool) string {
	switch {
	case name == Governor || name == SMT || name == THP:
		return ""
	case actions[name]:
		return "a write-only action, not a setting: there is no value to restore"
	case allowUnlisted:
		return ""
	case nodeBreakers[name]:
		return "it would cut the node's pods off the network; set allowUnlistedSysctls to allow it"
	case Allowed(name):
		return ""
	}
	return "not on the tuner's allow-list (net.*, vm.*, kernel.sched_*, kernel.numa_balancing, kernel.timer_migration, kernel.nmi_watchdog, kernel.hung_task_timeout_secs); set allowUnlistedSysctls to allow it"
}

// Allowed tells whether a sysctl is on the allow-list.
func Allowed(name string) bool {
	if allowedKeys[name] {
		return true
	}
	if actions[name] || nodeBreakers[name] {
		return false
	}
	for _, p := range allowedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
