package gke

import (
	"context"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// ClusterInfo is what GKE says of a cluster that decides how its node pools
// are asked for.
type ClusterInfo struct {
	// Channel is the release channel (RAPID, REGULAR, STABLE, EXTENDED), ""
	// for none. On a channel GKE refuses node pools with auto-upgrade or
	// auto-repair off ("Auto_upgrade cannot be false when release_channel
	// REGULAR is set.", nkoson/gke-tutorial#8;
	// https://cloud.google.com/kubernetes-engine/docs/concepts/release-channels).
	Channel string
	// Locations are the cluster's zones.
	Locations []string
	// Version is the control plane's version.
	Version string
	// Exclusion names the maintenance exclusion that holds minor and node
	// upgrades back now (scope NO_UPGRADES or NO_MINOR_OR_NODE_UPGRADES,
	// https://cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions),
	// "" if none does.
	Exclusion string
}

// OnChannel reports whether the cluster is enrolled in a release channel.
func (i ClusterInfo) OnChannel() bool { return i.Channel != "" }

// clusterInfo reads a cluster as GKE returns it; now decides which
// exclusions hold.
func clusterInfo(cl *containerpb.Cluster, now time.Time) ClusterInfo {
	info := ClusterInfo{Locations: slices.Clone(cl.GetLocations()), Version: cl.GetCurrentMasterVersion()}
	if ch := cl.GetReleaseChannel().GetChannel(); ch != containerpb.ReleaseChannel_UNSPECIFIED {
		info.Channel = ch.String()
	}
	exclusions := cl.GetMaintenancePolicy().GetWindow().GetMaintenanceExclusions()
	names := make([]string, 0, len(exclusions))
	for name := range exclusions {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if holdsUpgrades(exclusions[name], now) {
			info.Exclusion = name
			break
		}
	}
	return info
}

// holdsUpgrades tells an exclusion in force at now whose scope keeps GKE
// from replacing nodes for an upgrade.
func holdsUpgrades(w *containerpb.TimeWindow, now time.Time) bool {
	switch w.GetMaintenanceExclusionOptions().GetScope() {
	case containerpb.MaintenanceExclusionOptions_NO_UPGRADES, containerpb.MaintenanceExclusionOptions_NO_MINOR_OR_NODE_UPGRADES:
	default:
		return false
	}
	if s := w.GetStartTime(); s != nil && now.Before(s.AsTime()) {
		return false
	}
	if e := w.GetEndTime(); e != nil && !now.Before(e.AsTime()) {
		return false
	}
	return true
}

// Cluster reads the cluster from GKE (fresh) or from what the last read
// kept. A pool is made from a fresh read; the reads in between use the kept
// one.
func (p *Provider) Cluster(ctx context.Context, c Cluster, fresh bool) (ClusterInfo, error) {
	p.mu.Lock()
	info, ok := p.clusters[c]
	p.mu.Unlock()
	if ok && !fresh {
		return info, nil
	}
	cl, err := p.client.GetCluster(ctx, &containerpb.GetClusterRequest{Name: c.Parent()})
	if err != nil {
		e := classifyErr(err)
		if e.Kind == NotFound {
			e = &Error{Kind: InvalidConfig, Message: e.Message, Err: e.Err}
		}
		return ClusterInfo{}, e
	}
	info = clusterInfo(cl, time.Now())
	p.mu.Lock()
	p.clusters[c] = info
	p.mu.Unlock()
	return info, nil
}

// regionOf is the region of a zone or a region.
func regionOf(location string) string {
	if zonePattern.MatchString(location) {
		return location[:strings.LastIndex(location, "-")]
	}
	return location
}

// ExclusionName is the maintenance exclusion ExcludeUpgrades adds.
const ExclusionName = "benchwright-campaigns"

// ExcludeUpgrades adds to the cluster's maintenance policy the exclusion
// ExclusionName, of scope NO_MINOR_OR_NODE_UPGRADES, from now for d (GKE
// allows that scope up to the end of support of the cluster's minor
// version, https://cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions),
// and returns the cluster as it then is. It needs container.clusters.update.
func (p *Provider) ExcludeUpgrades(ctx context.Context, c Cluster, d time.Duration) (ClusterInfo, error) {
	cl, err := p.client.GetCluster(ctx, &containerpb.GetClusterRequest{Name: c.Parent()})
	if err != nil {
		return ClusterInfo{}, Classify(err)
	}
	policy := cl.GetMaintenancePolicy()
	if policy == nil {
		policy = &containerpb.MaintenancePolicy{}
	}
	if policy.Window == nil {
		policy.Window = &containerpb.MaintenanceWindow{}
	}
	if policy.Window.MaintenanceExclusions == nil {
		policy.Window.MaintenanceExclusions = map[string]*containerpb.TimeWindow{}
	}
	now := time.Now()
	policy.Window.MaintenanceExclusions[ExclusionName] = &containerpb.TimeWindow{
		StartTime: timestamppb.New(now),
		EndTime:   timestamppb.New(now.Add(d)),
		Options: &containerpb.TimeWindow_MaintenanceExclusionOptions{MaintenanceExclusionOptions: &containerpb.MaintenanceExclusionOptions{
			Scope: containerpb.MaintenanceExclusionOptions_NO_MINOR_OR_NODE_UPGRADES,
		}},
	}
	if _, err := p.client.SetMaintenancePolicy(ctx, &containerpb.SetMaintenancePolicyRequest{Name: c.Parent(), MaintenancePolicy: policy}); err != nil {
		return ClusterInfo{}, Classify(err)
	}
	return p.Cluster(ctx, c, true)
}
