package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TuningProfile condition types and reasons.
const (
	// TuningConditionTuned is True when every requested value reads back on every
	// selected node.
	TuningConditionTuned = "Tuned"
	// TuningConditionDegraded is True when a node refused or failed a value.
	TuningConditionDegraded = "Degraded"

	ReasonAllApplied      = "AllApplied"
	ReasonApplying        = "Applying"
	ReasonMismatch        = "ValueMismatch"
	ReasonRefusedKey      = "KeyNotAllowed"
	ReasonNoNodes         = "NoNodes"
	ReasonRestoring       = "Restoring"
	ReasonTunerNotRunning = "TunerNotRunning"

	// ReasonRestoreFailed: a node's tuner could not write an original value
	// back; the deleted profile keeps its finalizer until it can.
	ReasonRestoreFailed = "RestoreFailed"

	// ReasonPoolNotInCampaign: a profile of a campaign names a pool that is
	// not of the same campaign (or does not exist yet); nothing is tuned.
	ReasonPoolNotInCampaign = "PoolNotInCampaign"
)

// TuningPreset names a set of settings expanded to explicit values (and shown in
// status.requested).
// +kubebuilder:validation:Enum=hpc-compute;network-latency;network-throughput;throughput-performance
type TuningPreset string

// Tuning presets, after the tuned profiles of the same names and seed 003.
const (
	PresetHPCCompute            TuningPreset = "hpc-compute"
	PresetNetworkLatency        TuningPreset = "network-latency"
	PresetNetworkThroughput     TuningPreset = "network-throughput"
	PresetThroughputPerformance TuningPreset = "throughput-performance"
)

// TuningProfileSpec is the node settings to apply, and where.
// +kubebuilder:validation:XValidation:rule="has(self.pool) != has(self.nodeSelector)",message="set exactly one of pool (a BenchmarkPool) and nodeSelector"
// +kubebuilder:validation:XValidation:rule="has(self.preset) || has(self.sysctls) || has(self.cpu) || has(self.transparentHugepages)",message="a tuning profile needs at least one of preset, sysctls, cpu and transparentHugepages"
// +kubebuilder:validation:XValidation:rule="!has(self.sysctls) || self.sysctls.all(s, !(s.name in ['kernel.modprobe', 'kernel.core_pattern', 'kernel.core_pipe_limit', 'kernel.poweroff_cmd', 'kernel.hotplug', 'kernel.sysrq', 'kernel.kptr_restrict', 'kernel.dmesg_restrict', 'kernel.randomize_va_space', 'kernel.kexec_load_disabled', 'kernel.unprivileged_bpf_disabled', 'kernel.modules_disabled']) && !['kernel.usermodehelper.', 'kernel.yama.', 'kernel.keys.', 'fs.', 'user.', 'dev.'].exists(p, s.name.startsWith(p)))",message="no TuningProfile may set kernel.modprobe, kernel.core_pattern, kernel.usermodehelper.*, fs.*, kernel.yama.*, kernel.sysrq and the like, allowUnlistedSysctls or not: they let the kernel run programs as root or weaken the node's protections"
// +kubebuilder:validation:XValidation:rule="(has(self.allowUnlistedSysctls) && self.allowUnlistedSysctls) || !has(self.sysctls) || self.sysctls.all(s, s.name in ['net.core.busy_poll', 'net.core.busy_read', 'net.core.rmem_default', 'net.core.rmem_max', 'net.core.wmem_default', 'net.core.wmem_max', 'net.core.netdev_budget', 'net.core.netdev_budget_usecs', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem', 'net.ipv4.tcp_fastopen', 'net.ipv4.tcp_congestion_control', 'net.ipv4.tcp_mtu_probing', 'net.ipv4.tcp_timestamps', 'net.ipv4.tcp_sack', 'net.ipv4.tcp_window_scaling', 'net.ipv4.tcp_slow_start_after_idle', 'net.ipv4.tcp_no_metrics_save', 'net.ipv4.tcp_autocorking', 'net.ipv4.tcp_low_latency', 'net.ipv4.tcp_notsent_lowat', 'net.ipv4.tcp_limit_output_bytes', 'net.ipv4.tcp_moderate_rcvbuf', 'net.ipv4.tcp_ecn', 'net.ipv4.tcp_tw_reuse', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.udp_rmem_min', 'net.ipv4.udp_wmem_min', 'vm.swappiness', 'vm.dirty_ratio', 'vm.dirty_background_ratio', 'vm.dirty_bytes', 'vm.dirty_background_bytes', 'vm.dirty_expire_centisecs', 'vm.dirty_writeback_centisecs', 'vm.dirtytime_expire_seconds', 'vm.stat_interval', 'vm.zone_reclaim_mode', 'vm.page-cluster', 'kernel.numa_balancing', 'kernel.timer_migration', 'kernel.nmi_watchdog', 'kernel.hung_task_timeout_secs', 'kernel.sched_autogroup_enabled', 'kernel.sched_migration_cost_ns', 'kernel.sched_min_granularity_ns', 'kernel.sched_wakeup_granularity_ns', 'kernel.sched_latency_ns', 'kernel.sched_nr_migrate', 'kernel.sched_schedstats'] || s.name.matches('^net[.]ipv4[.]conf[.][a-z0-9_-]{1,15}[.]log_martians$') || s.name.matches('^net[.]ipv4[.]neigh[.][a-z0-9_-]{1,15}[.]unres_qlen_bytes$'))",message="sysctls off the tuner's allow-list (exact names, each with why a node survives it: README, Security) need allowUnlistedSysctls: true, which only the admin's allowUnlistedSysctlsGroups may set"
type TuningProfileSpec struct {
	// pool names the BenchmarkPool whose nodes are tuned (the nodes carrying
	// its label, but no control-plane node).
	// +optional
	Pool PoolName `json:"pool,omitempty"`

	// nodeSelector selects the nodes to tune when no pool is used, among the
	// nodes an admin opted in: it must hold benchwright.io/benchmark-node: "true".
	// Control-plane nodes are never tuned.
	// +optional
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="'benchwright.io/benchmark-node' in self && self['benchwright.io/benchmark-node'] == 'true'",message="nodeSelector must hold benchwright.io/benchmark-node: \"true\": a TuningProfile tunes only the nodes an admin opted in with that label (or set pool to tune a BenchmarkPool's nodes)"
	// +kubebuilder:validation:XValidation:rule="!('node-role.kubernetes.io/control-plane' in self) && !('node-role.kubernetes.io/master' in self)",message="nodeSelector must not select on node-role.kubernetes.io/control-plane or node-role.kubernetes.io/master: a TuningProfile never tunes control-plane nodes"
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// preset adds the settings of a named profile; explicit sysctls override it.
	// +optional
	Preset TuningPreset `json:"preset,omitempty"`

	// sysctls are kernel parameters to set.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Sysctls []Sysctl `json:"sysctls,omitempty"`

	// cpu sets the frequency governor, the maximum frequency, turbo boost and SMT.
	// +optional
	CPU *CPUTuning `json:"cpu,omitempty"`

	// transparentHugepages sets /sys/kernel/mm/transparent_hugepage/enabled.
	// +optional
	// +kubebuilder:validation:Enum=always;madvise;never
	TransparentHugepages string `json:"transparentHugepages,omitempty"`

	// allowUnlistedSysctls lets the tuner set sysctls outside its allow-list
	// of exact names (net.core.busy_poll, net.ipv4.tcp_rmem, vm.swappiness,
	// ...). Off by default: a typo or a dangerous key is refused, not written
	// to every node.
	// +optional
	AllowUnlistedSysctls bool `json:"allowUnlistedSysctls,omitempty"`
}

// CPUTuning sets CPU frequency and SMT.
// +kubebuilder:validation:XValidation:rule="has(self.governor) || has(self.smt) || has(self.maxFrequency) || has(self.boost)",message="cpu needs at least one of governor, smt, maxFrequency and boost"
type CPUTuning struct {
	// governor is the cpufreq scaling governor of every CPU.
	// +optional
	// +kubebuilder:validation:Enum=performance;powersave;ondemand;schedutil;conservative
	Governor string `json:"governor,omitempty"`

	// smt writes /sys/devices/system/cpu/smt/control: off takes sibling threads
	// offline, on brings them back.
	// +optional
	// +kubebuilder:validation:Enum=on;off
	SMT string `json:"smt,omitempty"`

	// maxFrequency caps every online CPU's frequency: written to
	// cpufreq/scaling_max_freq (in kHz) of each, e.g. "2.2GHz", "2200MHz" or
	// "2200000kHz". A value outside a CPU's cpuinfo_min_freq..cpuinfo_max_freq
	// is reported as not applied (the kernel would clamp it), never written.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]{1,3}([.][0-9]{1,6})?GHz|[0-9]{1,6}([.][0-9]{1,3})?MHz|[0-9]{1,9}kHz)$')",message="maxFrequency is a whole number of kHz written with the unit GHz, MHz or kHz, e.g. 2.2GHz, 2200MHz or 2200000kHz"
	MaxFrequency string `json:"maxFrequency,omitempty"`

	// boost turns turbo frequencies on or off: written to
	// /sys/devices/system/cpu/cpufreq/boost (acpi-cpufreq, amd-pstate) or,
	// inverted, to /sys/devices/system/cpu/intel_pstate/no_turbo, whichever
	// the node has.
	// +optional
	// +kubebuilder:validation:Enum=on;off
	Boost string `json:"boost,omitempty"`
}

// TuningState is a TuningProfile's one-word state, derived from its conditions.
// +kubebuilder:validation:Enum=Applying;Tuned;Degraded;Restoring
type TuningState string

// TuningProfile states.
const (
	TuningApplying  TuningState = "Applying"
	TuningTuned     TuningState = "Tuned"
	TuningDegraded  TuningState = "Degraded"
	TuningRestoring TuningState = "Restoring"
)

// TuningProfileStatus is what each node reports.
type TuningProfileStatus struct {
	// conditions are Tuned and Degraded.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// requested is the full set of settings after expanding the preset, each with
	// where its value comes from.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Requested []RequestedSetting `json:"requested,omitempty"`

	// state is the one-word state `kubectl get` shows and workflows wait on:
	// Applying, Tuned, Degraded (a value does not read back or is refused;
	// the Degraded condition says which) or Restoring (being deleted).
	// +optional
	State TuningState `json:"state,omitempty"`

	// tunedNodes counts nodes where every value reads back.
	// +optional
	TunedNodes int32 `json:"tunedNodes,omitempty"`

	// desiredNodes counts the selected nodes.
	// +optional
	DesiredNodes int32 `json:"desiredNodes,omitempty"`

	// nodes is the per-node state.
	// +optional
	// +listType=map
	// +listMapKey=node
	// +kubebuilder:validation:MaxItems=1000
	Nodes []NodeTuningStatus `json:"nodes,omitempty"`
}

// RequestedSetting is one setting the profile asks for.
type RequestedSetting struct {
	// name is a sysctl name, or cpu.governor, cpu.smt, cpu.max_freq_khz,
	// cpu.boost, transparent_hugepage.
	// +required
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`
	// value requested.
	// +required
	// +kubebuilder:validation:MaxLength=1024
	Value string `json:"value"`
	// source is where the value comes from: the spec, or a preset and its origin
	// (e.g. "preset network-latency (tuned)").
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Source string `json:"source,omitempty"`
}

// NodeTuningStatus is one node's applied state.
type NodeTuningStatus struct {
	// node name.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node"`
	// tuned is true when every value reads back as requested.
	// +required
	Tuned bool `json:"tuned"`
	// mismatches lists the settings whose observed value differs.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=128
	Mismatches []SettingMismatch `json:"mismatches,omitempty"`
	// message from the tuner (refused keys, errors).
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
	// firewallRules is how many iptables and nftables rules the node's host
	// network namespace has, as the tuner (which alone has CAP_NET_ADMIN
	// there) last counted them; absent when it could not count them.
	// Benchmarks on the node record it in nodes.json.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000000
	FirewallRules *int32 `json:"firewallRules,omitempty"`
	// lastUpdateTime is when the tuner last reported.
	// +optional
	LastUpdateTime *metav1.Time `json:"lastUpdateTime,omitempty"`
}

// SettingMismatch is a value that did not read back.
type SettingMismatch struct {
	// name of the setting.
	// +required
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`
	// requested value; the manager cuts a longer one (per-CPU values such as
	// "cpu0=performance cpu1=powersave ...") to 4096 bytes.
	// +required
	// +kubebuilder:validation:MaxLength=4096
	Requested string `json:"requested"`
	// observed value, cut like requested.
	// +required
	// +kubebuilder:validation:MaxLength=4096
	Observed string `json:"observed"`
}

// TuningProfile tunes the nodes of a pool (sysctls, CPU governor, SMT,
// transparent hugepages) and restores them when deleted.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=tuning,categories=benchwright
// +kubebuilder:printcolumn:name="Pool",type=string,JSONPath=`.spec.pool`
// +kubebuilder:printcolumn:name="Preset",type=string,JSONPath=`.spec.preset`
// +kubebuilder:printcolumn:name="Tuned",type=integer,JSONPath=`.status.tunedNodes`
// +kubebuilder:printcolumn:name="Nodes",type=integer,JSONPath=`.status.desiredNodes`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type TuningProfile struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the settings and where they apply.
	// +required
	Spec TuningProfileSpec `json:"spec"`

	// status is what each node reports.
	// +optional
	Status TuningProfileStatus `json:"status,omitempty"`
}

// TuningProfileList is a list of TuningProfiles.
//
// +kubebuilder:object:root=true
type TuningProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TuningProfile `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &TuningProfile{}, &TuningProfileList{})
}
