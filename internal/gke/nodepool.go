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
	"github.com/benchwright/benchwright/internal/gke/limits"
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

// AllowedSysctls returns GKE's linuxNodeConfig allow-list, sorted.
func AllowedSysctls() []string { return slices.Clone(limits.Sysctls) }

// AllowedSysctl reports whether GKE's linuxNodeConfig accepts the sysctl name.
func AllowedSysctl(name string) bool { return limits.Sysctl(name) }

// MachineSeries is the series of a machine type: "c3" for c3-highcpu-176.
func MachineSeries(machineType string) string { return limits.Series(machineType) }

// Target is where a node pool is made: the cluster, what GKE says of it,
// and the admin's default zone for pools that name none (chart
// gke.defaultZone).
type Target struct {
	Cluster     Cluster
	Info        ClusterInfo
	DefaultZone string
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
// poolName in the target cluster. The nodes carry the label and NoSchedule
// taint benchwright.io/pool=poolName, so only benchmarks that tolerate it
// land there.
//
// Off a release channel, auto-upgrade and auto-repair are off: an upgrade or
// a repair replaces nodes in the middle of a campaign, losing their tuning
// and possibly their compact placement. On a channel GKE refuses that, so
// both are on, and what holds upgrades back is a maintenance exclusion
// (ClusterInfo.Exclusion; the pool's UpgradesExcluded condition says whether
// one does).
//
// The pool lives in one zone: its nodeLocations, or on a cluster with several
// zones the target's default zone (else GKE would create nodeCount nodes in
// each zone).
//
// It refuses, with *Error of kind InvalidConfig naming the field to fix, what
// GKE would refuse: a zone outside the cluster's region, compact placement on
// a machine series without it, Tier_1 without gVNIC or on a machine GKE does
// not give it to, threads per core where the machine has none, sysctls
// outside GKE's allow-list.
//
// owner, the BenchmarkPool's UID, marks the node pool as this BenchmarkPool's
// (a GCE resource label, OwnerLabel): benchwright adopts and deletes only node
// pools that carry its mark.
func NodePoolRequest(poolName, owner string, spec *benchv1.GKEPoolSpec, target Target) (*containerpb.NodePool, error) {
	if spec == nil {
		return nil, invalidf("spec.gke is required for provider gke")
	}
	if err := validate(poolName, spec); err != nil {
		return nil, err
	}
	zones, err := poolZones(spec, target)
	if err != nil {
		return nil, err
	}
	cfg := &containerpb.NodeConfig{
		MachineType:    spec.MachineType,
		DiskType:       string(spec.DiskType),
		ImageType:      spec.ImageType,
		Spot:           spec.Spot,
		ServiceAccount: spec.ServiceAccount,
		OauthScopes:    slices.Clone(spec.OAuthScopes),
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
	onChannel := target.Info.OnChannel()
	np := &containerpb.NodePool{
		Name:             NodePoolName(poolName),
		Config:           cfg,
		InitialNodeCount: spec.NodeCount,
		Locations:        zones,
		Management:       &containerpb.NodeManagement{AutoUpgrade: onChannel, AutoRepair: onChannel},
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

// poolZones is the pool's zone: its nodeLocations, else the target's
// default zone on a cluster with several zones, else none (the cluster's
// one zone).
func poolZones(spec *benchv1.GKEPoolSpec, target Target) ([]string, error) {
	region := regionOf(target.Cluster.Location)
	zones := slices.Clone(spec.NodeLocations)
	field := "spec.gke.nodeLocations"
	if len(zones) == 0 && len(target.Info.Locations) > 1 {
		if target.DefaultZone == "" {
			return nil, invalidf("spec.gke.nodeLocations: cluster %s has the zones %s and the pool names none, so GKE would create nodeCount nodes in each: set spec.gke.nodeLocations to one zone (or an admin sets the chart value gke.defaultZone)",
				target.Cluster.Parent(), strings.Join(target.Info.Locations, ", "))
		}
		zones, field = []string{target.DefaultZone}, "the manager's default zone (gke.defaultZone)"
	}
	for _, z := range zones {
		if !zonePattern.MatchString(z) || regionOf(z) != region {
			return nil, invalidf("%s: %s is not a zone of the cluster's region %s (GKE places a pool's nodes in zones of its cluster's region)", field, z, region)
		}
	}
	return zones, nil
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
	series := MachineSeries(spec.MachineType)
	if spec.CompactPlacement != nil && spec.MachineType != "" && !limits.CompactPlacement(spec.MachineType) {
		add("spec.gke.compactPlacement: machine type %s (series %s) does not support compact placement; use one of the series %s, or remove compactPlacement",
			spec.MachineType, series, strings.Join(limits.CompactPlacementSeries, ", "))
	}
	if t := spec.ThreadsPerCore; t != nil && *t != 1 && *t != 2 {
		add("spec.gke.threadsPerCore must be 1 (SMT off) or 2, got %d", *t)
	}
	if spec.ThreadsPerCore != nil && spec.MachineType != "" && !limits.ThreadsPerCore(spec.MachineType) {
		add("spec.gke.threadsPerCore: GKE cannot set threads per core on machine type %s (T2D, T2A and C4A have one thread per core; shared-core types and those under 2 vCPUs have none to set): remove threadsPerCore",
			spec.MachineType)
	}
	switch spec.NetworkTier {
	case "":
	case tier1:
		if spec.GVNIC == nil || !*spec.GVNIC {
			add("spec.gke.networkTier TIER_1 needs gVNIC: set spec.gke.gvnic: true")
		}
		if !limits.Tier1(spec.MachineType) {
			add("spec.gke.networkTier TIER_1: GKE gives Tier_1 bandwidth only to %s machine types with at least %d vCPUs, not %s",
				strings.ToUpper(strings.Join(limits.Tier1Series, ", ")), limits.Tier1MinVCPUs, spec.MachineType)
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
