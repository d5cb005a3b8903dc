package gke

import (
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// EffectiveSettings is a node pool as GKE reports it: the settings that go into
// the BenchmarkPool's status.effective, and the pool's state.
type EffectiveSettings struct {
	// Settings are the node settings for status.effective.
	Settings benchv1.EffectivePoolSettings
	// Status is GKE's node pool status: PROVISIONING, RUNNING, RECONCILING,
	// STOPPING, ERROR...
	Status string
	// Message is what GKE says about the status (its conditions), if anything.
	Message string
	// Locations are the zones of the nodes.
	Locations []string
	// InstanceGroupURLs are the pool's managed instance groups.
	InstanceGroupURLs []string
	// Version is the nodes' Kubernetes version.
	Version string
}

// Running reports whether GKE has finished creating the pool: RUNNING, or
// RECONCILING ("some work is actively being done on the node pool", the pool
// still serves).
func (e EffectiveSettings) Running() bool {
	return e.Status == containerpb.NodePool_RUNNING.String() || e.Reconciling()
}

// Reconciling reports whether GKE works on the running pool.
func (e EffectiveSettings) Reconciling() bool {
	return e.Status == containerpb.NodePool_RECONCILING.String()
}

// Effective reads back what GKE reports for a node pool in a cluster. The
// node count is the total over the pool's zones (GKE's initialNodeCount is
// per zone).
func Effective(np *containerpb.NodePool, cluster ClusterInfo) EffectiveSettings {
	cfg := np.GetConfig()
	zones := max(1, len(np.GetLocations()))
	s := benchv1.EffectivePoolSettings{
		MachineType: cfg.GetMachineType(),
		NodeCount:   np.GetInitialNodeCount() * int32(zones),
		DiskType:    cfg.GetDiskType(),
		DiskSizeGb:  cfg.GetDiskSizeGb(),
		Spot:        cfg.GetSpot(),
		ImageType:   cfg.GetImageType(),
		GVNIC:       cfg.GetGvnic().GetEnabled(),
		// The pool's zones, its management, the cluster's channel and the
		// nodes' identity: what a campaign's nodes are exposed to.
		NodeLocations:  slices.Clone(np.GetLocations()),
		AutoUpgrade:    np.GetManagement().GetAutoUpgrade(),
		AutoRepair:     np.GetManagement().GetAutoRepair(),
		ReleaseChannel: cluster.Channel,
		ServiceAccount: cfg.GetServiceAccount(),
	}
	if p := np.GetPlacementPolicy(); p.GetType() != containerpb.NodePool_PlacementPolicy_TYPE_UNSPECIFIED {
		s.PlacementPolicy = p.GetType().String()
		s.PlacementPolicyName = p.GetPolicyName()
	}
	if f := cfg.GetAdvancedMachineFeatures(); f != nil && f.ThreadsPerCore != nil {
		s.ThreadsPerCore = int32(f.GetThreadsPerCore())
	}
	if t := np.GetNetworkConfig().GetNetworkPerformanceConfig(); t != nil && t.TotalEgressBandwidthTier != nil {
		s.NetworkTier = t.GetTotalEgressBandwidthTier().String()
	}
	for name, value := range cfg.GetLinuxNodeConfig().GetSysctls() {
		s.Sysctls = append(s.Sysctls, benchv1.Sysctl{Name: name, Value: value})
	}
	slices.SortFunc(s.Sysctls, func(a, b benchv1.Sysctl) int { return strings.Compare(a.Name, b.Name) })

	var msgs []string
	for _, c := range np.GetConditions() {
		msgs = append(msgs, c.GetMessage())
	}
	if len(msgs) == 0 && np.GetStatusMessage() != "" { //nolint:staticcheck // deprecated, still filled by GKE
		msgs = append(msgs, np.GetStatusMessage()) //nolint:staticcheck // as above
	}
	return EffectiveSettings{
		Settings:          s,
		Status:            np.GetStatus().String(),
		Message:           strings.Join(msgs, "; "),
		Locations:         slices.Clone(np.GetLocations()),
		InstanceGroupURLs: slices.Clone(np.GetInstanceGroupUrls()),
		Version:           np.GetVersion(),
	}
}
