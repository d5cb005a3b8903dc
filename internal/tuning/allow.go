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
//
// The TuningProfile CRD's CEL rules (api/v1alpha1/tuningprofile_types.go)
// repeat the allow-list, the node breakers and the hard deny-list, so that
// the API server refuses them at kubectl apply; admission_test.go checks
// that the CRD refuses exactly what refuse does (actions aside).
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
	// nodeBreakers stop pod networking or take the node down.
	nodeBreakers = map[string]bool{
		"net.ipv4.ip_forward": true,
		"vm.panic_on_oom":     true, // an out-of-memory pod would panic the node
		"vm.nr_hugepages":     true, // reserving most of memory starves the kubelet
	}
	// nodeBreakerPatterns are families of them: per-interface forwarding,
	// route_localnet and disable_ipv6 ("all", "default" or an interface in
	// the middle), and every bridge netfilter switch.
	nodeBreakerPatterns = []struct{ prefix, suffix string }{
		{"net.ipv4.conf.", ".forwarding"},
		{"net.ipv6.conf.", ".forwarding"},
		{"net.ipv4.conf.", ".route_localnet"},
		{"net.ipv6.conf.", ".disable_ipv6"},
		{"net.bridge.bridge-nf-", ""},
	}
	// hardDenied hold whatever a profile says: they would run programs as
	// root (the kernel calls modprobe, core_pattern's |pipe, the usermode
	// helpers) or weaken the node's protections.
	hardDenied = map[string]bool{
		"kernel.modprobe":                  true,
		"kernel.core_pattern":              true,
		"kernel.core_pipe_limit":           true,
		"kernel.poweroff_cmd":              true,
		"kernel.hotplug":                   true,
		"kernel.sysrq":                     true,
		"kernel.kptr_restrict":             true,
		"kernel.dmesg_restrict":            true,
		"kernel.randomize_va_space":        true,
		"kernel.kexec_load_disabled":       true,
		"kernel.unprivileged_bpf_disabled": true,
		"kernel.modules_disabled":          true,
	}
	hardDeniedPrefixes = []string{"kernel.usermodehelper.", "kernel.yama.", "kernel.keys.", "fs.", "user.", "dev."}
)

// HardDenied tells whether no profile may set a sysctl, allowUnlistedSysctls
// or not.
func HardDenied(name string) bool {
	if hardDenied[name] {
		return true
	}
	for _, p := range hardDeniedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// nodeBreaker tells whether a sysctl cuts the node's pods off or takes the
// node down.
func nodeBreaker(name string) bool {
	if nodeBreakers[name] {
		return true
	}
	for _, p := range nodeBreakerPatterns {
		if strings.HasPrefix(name, p.prefix) && strings.HasSuffix(name, p.suffix) && len(name) > len(p.prefix)+len(p.suffix) {
			return true
		}
	}
	return false
}

// Refusal says why a setting is not applied.
type Refusal struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// refuse says why a valid setting may not be applied, or nothing when it may.
func refuse(name string, allowUnlisted bool) string {
	switch {
	case ownSetting(name):
		return ""
	case actions[name]:
		return "a write-only action, not a setting: there is no value to restore"
	case HardDenied(name):
		return "refused whatever allowUnlistedSysctls says: it would let the kernel run programs as root or weaken the node's protections"
	case allowUnlisted:
		return ""
	case nodeBreaker(name):
		return "it would cut the node's pods off the network or take the node down; set allowUnlistedSysctls to allow it"
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
	if actions[name] || nodeBreaker(name) || HardDenied(name) {
		return false
	}
	for _, p := range allowedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
