package gke

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"k8s.io/apimachinery/pkg/util/validation"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// MaxNodePoolNameLength is GKE's limit on node pool names.
const MaxNodePoolNameLength = 40

var nodePoolNamePattern = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// NodePoolName is the GKE node pool name of a BenchmarkPool: the pool name
// itself when GKE accepts it (lower case, starts with a letter, at most 40
// characters of [-a-z0-9]); otherwise a cleaned, shortened form with a hash of
// the full name appended, so that two BenchmarkPools never share a node pool.
func NodePoolName(poolName string) string {
	if len(poolName) <= MaxNodePoolNameLength && nodePoolNamePattern.MatchString(poolName) {
		return poolName
	}
	var b strings.Builder
	for _, r := range strings.ToLower(poolName) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	clean := b.String()
	if clean == "" || clean[0] < 'a' || clean[0] > 'z' {
		clean = "bp-" + clean
	}
	sum := sha256.Sum256([]byte(poolName))
	suffix := "-" + hex.EncodeToString(sum[:])[:8]
	clean = clean[:min(len(clean), MaxNodePoolNameLength-len(suffix))]
	return strings.TrimRight(clean, "-") + suffix
}

// compactPlacementSeries are the machine series GKE documents for compact
// placement (C2, C2D, C3, C3D, C4D, H3, H4D, N2, N2D, and the A2, A3, A4, G2,
// G4 accelerator series; Compute Engine's placement-policy documentation).
// A series missing here is refused before GKE is asked; GKE's own refusal of
// a series listed here still comes back as InvalidConfig.
var compactPlacementSeries = []string{
	"a2", "a3", "a4", "a4x", "c2", "c2d", "c3", "c3d", "c4d", "g2", "g4", "h3", "h4d", "n2", "n2d",
}

// allowedSysctls is GKE's allow-list for linuxNodeConfig.sysctls, as the
// google.container.v1 LinuxNodeConfig documents it. Anything else belongs in a
// TuningProfile.
var allowedSysctls = []string{
	"fs.aio-max-nr", "fs.file-max", "fs.inotify.max_user_instances", "fs.inotify.max_user_watches", "fs.nr_open",
	"kernel.core_pattern", "kernel.dmesg_restrict", "kernel.keys.maxbytes", "kernel.keys.maxkeys",
	"kernel.kptr_restrict", "kernel.perf_event_paranoid", "kernel.sched_rt_runtime_us", "kernel.shmall",
	"kernel.shmmax", "kernel.shmmni", "kernel.softlockup_panic", "kernel.sysrq", "kernel.yama.ptrace_scope",
	"net.core.busy_poll", "net.core.busy_read", "net.core.netdev_max_backlog", "net.core.optmem_max",
	"net.core.rmem_default", "net.core.rmem_max", "net.core.somaxconn", "net.core.wmem_default", "net.core.wmem_max",
	"net.ipv4.neigh.default.gc_thresh1", "net.ipv4.neigh.default.gc_thresh2", "net.ipv4.neigh.default.gc_thresh3",
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

// AllowedSysctls returns GKE's linuxNodeConfig allow-list, sorted.
func AllowedSysctls() []string { return slices.Clone(allowedSysctls) }

// AllowedSysctl reports whether GKE's linuxNodeConfig accepts the sysctl name.
func AllowedSysctl(name string) bool {
	_, ok := slices.BinarySearch(allowedSysctls, name)
	return ok
}

// MachineSeries is the series of a machine type: "c3" for c3-highcpu-176.
func MachineSeries(machineType string) string {
	series, _, _ := strings.Cut(machineType, "-")
	return series
}

// OwnerLabel is the GCE resource label of a node pool that holds the UID of
// the BenchmarkPool that created it.
const OwnerLabel = "benchwright-pool-uid"

// OwnedBy tells whether the node pool carries the mark of the BenchmarkPool
// with UID owner.
func OwnedBy(np *containerpb.NodePool, owner string) bool {
	return owner != "" && np.GetConfig().GetResourceLabels()[OwnerLabel] == owner
}

// NodePoolRequest is the node pool GKE is asked to create for the BenchmarkPool
// poolName. The nodes carry the label and NoSchedule taint benchwright.io/pool=
// poolName, so only benchmarks that tolerate it land there.
//
// Auto-upgrade and auto-repair are off: an upgrade or a repair replaces nodes
// in the middle of a campaign, losing their tuning and possibly their compact
// placement, so results before and after would not compare. (GKE refuses
// auto-upgrade off on clusters enrolled in a release channel; use a cluster on
// the static channel or a maintenance exclusion there.)
//
// It refuses, with *Error of kind InvalidConfig naming the field to fix, what
// GKE would refuse: compact placement over more than one zone or on a machine
// series without it, TIER_1 without gVNIC, threads per core other than 1 or 2,
// sysctls outside GKE's allow-list.
//
// owner, the BenchmarkPool's UID, marks the node pool as this BenchmarkPool's
// (a GCE resource label, OwnerLabel): benchwright adopts and deletes only node
// pools that carry its mark.
func NodePoolRequest(poolName, owner string, spec *benchv1.GKEPoolSpec) (*containerpb.NodePool, error) {
	if spec == nil {
		return nil, invalidf("spec.gke is required for provider gke")
	}
	if err := validate(poolName, spec); err != nil {
		return nil, err
	}
	cfg := &containerpb.NodeConfig{
		MachineType:    spec.MachineType,
		DiskType:       string(spec.DiskType),
		ImageType:      spec.ImageType,
		Spot:           spec.Spot,
		Labels:         map[string]string{benchv1.PoolLabel: poolName},
		ResourceLabels: map[string]string{OwnerLabel: owner},
		Taints: []*containerpb.NodeTaint{{
			Key: benchv1.PoolLabel, Value: poolName, Effect: containerpb.NodeTaint_NO_SCHEDULE,
		}},
	}
	if spec.DiskSizeGb != nil {
		cfg.DiskSizeGb = *spec.DiskSizeGb
	}
	if spec.ThreadsPerCore != nil {
		tpc := int64(*spec.ThreadsPerCore)
		cfg.AdvancedMachineFeatures = &containerpb.AdvancedMachineFeatures{ThreadsPerCore: &tpc}
	}
	if spec.GVNIC != nil {
		cfg.Gvnic = &containerpb.VirtualNIC{Enabled: *spec.GVNIC}
	}
	if spec.LinuxNodeConfig != nil && len(spec.LinuxNodeConfig.Sysctls) > 0 {
		sysctls := make(map[string]string, len(spec.LinuxNodeConfig.Sysctls))
		for _, s := range spec.LinuxNodeConfig.Sysctls {
			sysctls[s.Name] = s.Value
		}
		cfg.LinuxNodeConfig = &containerpb.LinuxNodeConfig{Sysctls: sysctls}
	}
	np := &containerpb.NodePool{
		Name:             NodePoolName(poolName),
		Config:           cfg,
		InitialNodeCount: spec.NodeCount,
		Locations:        slices.Clone(spec.NodeLocations),
		Management:       &containerpb.NodeManagement{AutoUpgrade: false, AutoRepair: false},
	}
	if spec.NetworkTier == tier1 {
		t := containerpb.NodeNetworkConfig_NetworkPerformanceConfig_TIER_1
		np.NetworkConfig = &containerpb.NodeNetworkConfig{
			NetworkPerformanceConfig: &containerpb.NodeNetworkConfig_NetworkPerformanceConfig{TotalEgressBandwidthTier: &t},
		}
	}
	if spec.CompactPlacement != nil {
		np.PlacementPolicy = &containerpb.NodePool_PlacementPolicy{
			Type:       containerpb.NodePool_PlacementPolicy_COMPACT,
			PolicyName: spec.CompactPlacement.PolicyName,
		}
	}
	return np, nil
}

const tier1 = "TIER_1"

func validate(poolName string, spec *benchv1.GKEPoolSpec) error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	switch {
	case poolName == "":
		add("the BenchmarkPool name is empty")
	case len(poolName) > validation.LabelValueMaxLength:
		add("BenchmarkPool name %q is longer than %d characters and cannot be the value of the node label and taint %s: use a shorter name",
			poolName, validation.LabelValueMaxLength, benchv1.PoolLabel)
	}
	if spec.MachineType == "" {
		add("spec.gke.machineType is required, e.g. c2-standard-60")
	}
	if spec.NodeCount < 1 {
		add("spec.gke.nodeCount must be at least 1, got %d", spec.NodeCount)
	}
	if len(spec.NodeLocations) > 1 {
		add("spec.gke.nodeLocations: a benchmark pool lives in one zone, got %d (%s)",
			len(spec.NodeLocations), strings.Join(spec.NodeLocations, ", "))
	}
	if spec.CompactPlacement != nil && spec.MachineType != "" && !slices.Contains(compactPlacementSeries, MachineSeries(spec.MachineType)) {
		add("spec.gke.compactPlacement: machine type %s (series %s) does not support compact placement; use one of the series %s, or remove compactPlacement",
			spec.MachineType, MachineSeries(spec.MachineType), strings.Join(compactPlacementSeries, ", "))
	}
	if t := spec.ThreadsPerCore; t != nil && *t != 1 && *t != 2 {
		add("spec.gke.threadsPerCore must be 1 (SMT off) or 2, got %d", *t)
	}
	switch spec.NetworkTier {
	case "":
	case tier1:
		if spec.GVNIC == nil || !*spec.GVNIC {
			add("spec.gke.networkTier TIER_1 needs gVNIC: set spec.gke.gvnic: true")
		}
	default:
		add("spec.gke.networkTier must be TIER_1 or empty, got %q", spec.NetworkTier)
	}
	if d := spec.DiskSizeGb; d != nil && *d < 10 {
		add("spec.gke.diskSizeGb must be at least 10, got %d", *d)
	}
	if spec.LinuxNodeConfig != nil {
		problems = append(problems, sysctlProblems(spec.LinuxNodeConfig.Sysctls)...)
	}
	if len(problems) > 0 {
		return invalidf("%s", strings.Join(problems, "; "))
	}
	return nil
}

func sysctlProblems(sysctls []benchv1.Sysctl) []string {
	var problems, refused []string
	seen := map[string]bool{}
	for _, s := range sysctls {
		switch {
		case seen[s.Name]:
			problems = append(problems, fmt.Sprintf("spec.gke.linuxNodeConfig.sysctls: %s is set twice", s.Name))
		case !AllowedSysctl(s.Name):
			refused = append(refused, s.Name)
		case strings.TrimSpace(s.Value) == "":
			problems = append(problems, fmt.Sprintf("spec.gke.linuxNodeConfig.sysctls: %s has an empty value", s.Name))
		}
		seen[s.Name] = true
	}
	if len(refused) > 0 {
		sort.Strings(refused)
		problems = append(problems, fmt.Sprintf(
			"spec.gke.linuxNodeConfig.sysctls: GKE does not allow %s; set it with a TuningProfile instead",
			strings.Join(refused, ", ")))
	}
	return problems
}
