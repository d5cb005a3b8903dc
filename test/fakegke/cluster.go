package fakegke

import (
	"context"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"
)

// DefaultConcurrentOperations is GKE's quota of operations running at once on
// a cluster (hashicorp/terraform-provider-google#15579: "hits the concurrent
// operations quota 5").
const DefaultConcurrentOperations = 5

// Cluster is a GKE cluster as the fake keeps it.
type Cluster struct {
	// Parent is projects/P/locations/L/clusters/C.
	Parent string
	// Channel is the release channel. New Standard clusters are enrolled in
	// REGULAR by default (https://cloud.google.com/kubernetes-engine/docs/concepts/release-channels),
	// so the zero value means REGULAR; NoChannel is a cluster on none.
	Channel containerpb.ReleaseChannel_Channel
	// NoChannel: the cluster is on no release channel (Channel is ignored).
	NoChannel bool
	// Locations are the cluster's zones. Default: the zone of a zonal
	// cluster, zones a, b and c of a regional one.
	Locations []string
	// Version is the control plane's and the nodes' version (default Version).
	Version string
	// OperationLock: one node-pool operation at a time, as GKE answered
	// before concurrent node-pool operations (terraform-provider-google#975).
	OperationLock bool
	// ConcurrentOperations is the quota of operations running at once
	// (default DefaultConcurrentOperations).
	ConcurrentOperations int
	// Exclusions are the maintenance exclusions, by name.
	Exclusions map[string]*containerpb.TimeWindow
	// ServiceAccounts are the node service accounts the caller may act as
	// (iam.serviceAccounts.actAs); a node pool naming another is refused.
	// GKE's default ("" or "default") is always allowed.
	ServiceAccounts []string
}

// WithClusterConfig adds a cluster as c describes it.
func WithClusterConfig(c Cluster) Option {
	return func(s *Server) { s.addCluster(c) }
}

// addCluster stores c with its defaults filled in.
func (s *Server) addCluster(c Cluster) {
	if _, ok := s.clusters[c.Parent]; ok {
		return
	}
	if c.NoChannel {
		c.Channel = containerpb.ReleaseChannel_UNSPECIFIED
	} else if c.Channel == containerpb.ReleaseChannel_UNSPECIFIED {
		c.Channel = containerpb.ReleaseChannel_REGULAR
	}
	if len(c.Locations) == 0 {
		c.Locations = DefaultZones(locationOf(c.Parent))
	}
	if c.Version == "" {
		c.Version = Version
	}
	if c.ConcurrentOperations == 0 {
		c.ConcurrentOperations = DefaultConcurrentOperations
	}
	s.clusterConfigs[c.Parent] = &c
	s.clusters[c.Parent] = map[string]*containerpb.NodePool{}
}

// DefaultZones are a location's zones, as the fake makes a cluster there: the
// zone itself, or a, b and c of a region.
func DefaultZones(location string) []string {
	if strings.Count(location, "-") == 2 {
		return []string{location}
	}
	return []string{location + "-a", location + "-b", location + "-c"}
}

// RegionOf is the region of a zone or region.
func RegionOf(location string) string {
	if strings.Count(location, "-") == 2 {
		return location[:strings.LastIndex(location, "-")]
	}
	return location
}

// GetCluster returns a cluster: its release channel, locations, version and
// maintenance policy (the fields benchwright reads).
func (s *Server) GetCluster(_ context.Context, req *containerpb.GetClusterRequest) (*containerpb.Cluster, error) {
	defer s.begin(req)()
	c, ok := s.clusterConfigs[req.GetName()]
	if !ok {
		return nil, answer(TextNotFound, req.GetName())
	}
	name := c.Parent[strings.LastIndex(c.Parent, "/")+1:]
	out := &containerpb.Cluster{
		Name:                 name,
		Location:             locationOf(c.Parent),
		Locations:            append([]string(nil), c.Locations...),
		CurrentMasterVersion: c.Version,
		CurrentNodeVersion:   c.Version, //nolint:staticcheck // GKE still fills it
		Status:               containerpb.Cluster_RUNNING,
		SelfLink:             "https://container.googleapis.com/v1/" + c.Parent,
	}
	if op := s.clusterOp(c.Parent); op != nil {
		out.Status = containerpb.Cluster_RECONCILING
	}
	if !c.NoChannel {
		out.ReleaseChannel = &containerpb.ReleaseChannel{Channel: c.Channel}
	}
	if len(c.Exclusions) > 0 {
		out.MaintenancePolicy = &containerpb.MaintenancePolicy{Window: &containerpb.MaintenanceWindow{
			MaintenanceExclusions: map[string]*containerpb.TimeWindow{},
		}}
		for n, w := range c.Exclusions {
			out.MaintenancePolicy.Window.MaintenanceExclusions[n] = proto.Clone(w).(*containerpb.TimeWindow)
		}
	}
	return out, nil
}

// SetMaintenancePolicy replaces a cluster's maintenance exclusions (the only
// part of the policy the fake keeps).
func (s *Server) SetMaintenancePolicy(_ context.Context, req *containerpb.SetMaintenancePolicyRequest) (*containerpb.Operation, error) {
	defer s.begin(req)()
	c, ok := s.clusterConfigs[req.GetName()]
	if !ok {
		return nil, answer(TextNotFound, req.GetName())
	}
	c.Exclusions = map[string]*containerpb.TimeWindow{}
	for n, w := range req.GetMaintenancePolicy().GetWindow().GetMaintenanceExclusions() {
		c.Exclusions[n] = proto.Clone(w).(*containerpb.TimeWindow)
	}
	op := s.startOp(c.Parent, "", containerpb.Operation_UPDATE_CLUSTER, nil)
	s.finish(op)
	return proto.Clone(op.pb).(*containerpb.Operation), nil
}

// UpgradeWindow starts a control-plane upgrade of the cluster that runs for
// d: meanwhile every node-pool call is refused with GKE's "currently
// upgrading cluster".
func (s *Server) UpgradeWindow(parent string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := s.startOp(parent, "", containerpb.Operation_UPGRADE_MASTER, nil)
	op.readyAt = s.now().Add(d)
	op.timed = true
}

// clusterOp is the cluster-wide operation running on parent, if any.
func (s *Server) clusterOp(parent string) *operation {
	for _, op := range s.ops {
		if !op.finished && op.parent == parent && op.pool == "" {
			return op
		}
	}
	return nil
}

// busy is GKE's refusal of a node-pool operation on a cluster that runs
// another one (a control-plane upgrade; with the operation lock, any other
// node-pool operation) or has its concurrent operations quota in use.
func (s *Server) busy(parent string) error {
	c := s.clusterConfigs[parent]
	name := parent[strings.LastIndex(parent, "/")+1:]
	if op := s.clusterOp(parent); op != nil {
		return answer(TextOperationRunning, op.pb.GetName(), "upgrading cluster "+name)
	}
	running := 0
	for _, op := range s.ops {
		if op.finished || op.parent != parent {
			continue
		}
		if c.OperationLock {
			return answer(TextOperationRunning, op.pb.GetName(), work(op.pb.GetOperationType())+" for cluster "+name)
		}
		running++
	}
	if running >= c.ConcurrentOperations {
		return answer(TextConcurrentOperations, name, c.ConcurrentOperations)
	}
	return nil
}

// work is how GKE names what an operation does.
func work(t containerpb.Operation_Type) string {
	if t == containerpb.Operation_DELETE_NODE_POOL {
		return "deleting a node pool"
	}
	return "creating a node pool"
}
