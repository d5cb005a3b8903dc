package tuning

import "strings"

// What a node may be tuned with: the allow-list (sysctls.go) unless a
// profile sets allowUnlistedSysctls, never an action (a write triggers it and
// there is no value to restore) and never the hard deny-list, whatever the
// profile says. The TuningProfile CRD's CEL rules hold the same lists
// (api/v1alpha1/tuningprofile_types.go: the allow-list's rule generated from
// sysctls.go); admission_test.go checks that the CRD refuses exactly what
// refuse does (actions aside).
var (
	// actions are write-only triggers.
	actions = map[string]bool{
		"vm.drop_caches":       true,
		"vm.compact_memory":    true,
		"vm.stat_refresh":      true,
		"net.ipv4.route.flush": true,
		"net.ipv6.route.flush": true,
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
	case Allowed(name):
		return ""
	}
	return "not on the tuner's allow-list of exact names (a value of it could cut the node's pods off the network or take the node down); set allowUnlistedSysctls to allow it"
}
