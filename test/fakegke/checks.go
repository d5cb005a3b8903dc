package fakegke

import (
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/benchwright/benchwright/internal/gke/limits"
)

// checkCreate refuses, with GKE's words, a node pool the cluster c would
// refuse: management off on a release channel, locations outside the
// cluster's region, compact placement over several zones or on a series
// without it, Tier_1 without gVNIC or on a small or unsupported machine,
// threads per core where the machine has none, sysctls outside GKE's list.
func checkCreate(c *Cluster, np *containerpb.NodePool) error {
	cfg := np.GetConfig()
	machine := cfg.GetMachineType()
	if !c.NoChannel {
		channel := c.Channel.String()
		switch {
		case !np.GetManagement().GetAutoUpgrade():
			return answer(TextAutoUpgradeOnChannel, channel)
		case !np.GetManagement().GetAutoRepair():
			return answer(TextAutoRepairOnChannel, channel)
		}
	}
	region := RegionOf(locationOf(c.Parent))
	for _, z := range np.GetLocations() {
		if RegionOf(z) != region || strings.Count(z, "-") != 2 {
			return answer(TextLocationNotInRegion, z, region)
		}
	}
	if np.GetPlacementPolicy().GetType() == containerpb.NodePool_PlacementPolicy_COMPACT {
		zones := np.GetLocations()
		if len(zones) == 0 {
			zones = c.Locations
		}
		if len(zones) != 1 {
			return answer(TextPlacementZones, np.GetName(), zones)
		}
		if !limits.CompactPlacement(machine) {
			return answer(TextPlacementMachineType, machine)
		}
	}
	if np.GetNetworkConfig().GetNetworkPerformanceConfig().GetTotalEgressBandwidthTier() == containerpb.NodeNetworkConfig_NetworkPerformanceConfig_TIER_1 &&
		(!cfg.GetGvnic().GetEnabled() || !limits.Tier1(machine)) {
		return answer(TextTier1, machine)
	}
	if f := cfg.GetAdvancedMachineFeatures(); f != nil && f.ThreadsPerCore != nil && !limits.ThreadsPerCore(machine) {
		return answer(TextThreadsPerCore, machine)
	}
	for name := range cfg.GetLinuxNodeConfig().GetSysctls() {
		if !limits.Sysctl(name) {
			return answer(TextInvalidSysctl, name)
		}
	}
	if sa := cfg.GetServiceAccount(); sa != "" && sa != "default" && !slices.Contains(c.ServiceAccounts, sa) {
		return answer(TextServiceAccountAccess, sa)
	}
	return nil
}
