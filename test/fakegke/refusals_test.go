package fakegke_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/benchwright/benchwright/test/fakegke"
)

const zonal = "projects/p/locations/us-central1-a/clusters/z"

// pool is a node pool GKE accepts on a release-channel cluster; edit
// changes it.
func pool(name string, edit func(*containerpb.NodePool)) *containerpb.CreateNodePoolRequest {
	tpc := int64(1)
	np := &containerpb.NodePool{
		Name: name, InitialNodeCount: 2,
		Config: &containerpb.NodeConfig{
			MachineType: "c2-standard-60", Gvnic: &containerpb.VirtualNIC{Enabled: true},
			AdvancedMachineFeatures: &containerpb.AdvancedMachineFeatures{ThreadsPerCore: &tpc},
			LinuxNodeConfig:         &containerpb.LinuxNodeConfig{Sysctls: map[string]string{"net.core.busy_poll": "50"}},
		},
		Management:      &containerpb.NodeManagement{AutoUpgrade: true, AutoRepair: true},
		PlacementPolicy: &containerpb.NodePool_PlacementPolicy{Type: containerpb.NodePool_PlacementPolicy_COMPACT},
		NetworkConfig: &containerpb.NodeNetworkConfig{NetworkPerformanceConfig: &containerpb.NodeNetworkConfig_NetworkPerformanceConfig{
			TotalEgressBandwidthTier: containerpb.NodeNetworkConfig_NetworkPerformanceConfig_TIER_1.Enum(),
		}},
	}
	if edit != nil {
		edit(np)
	}
	return &containerpb.CreateNodePoolRequest{Parent: zonal, NodePool: np}
}

// The fake refuses what GKE refuses, each in GKE's words from Texts.
func TestCreateIsCheckedAsGKEChecksIt(t *testing.T) {
	ctx := context.Background()
	srv := fakegke.Start(t, fakegke.WithCluster(zonal),
		fakegke.WithClusterConfig(fakegke.Cluster{Parent: "projects/p/locations/us-central1/clusters/r"}),
		fakegke.WithClusterConfig(fakegke.Cluster{Parent: "projects/p/locations/us-central1/clusters/static", NoChannel: true}))
	c := client(t, srv)
	if _, err := c.CreateNodePool(ctx, pool("ok", nil)); err != nil {
		t.Fatalf("a pool GKE accepts: %v", err)
	}
	for _, tc := range []struct {
		name string
		req  *containerpb.CreateNodePoolRequest
		want fakegke.TextID
	}{
		{"auto-upgrade off on a channel", pool("a", func(np *containerpb.NodePool) { np.Management.AutoUpgrade = false }), fakegke.TextAutoUpgradeOnChannel},
		{"auto-repair off on a channel", pool("b", func(np *containerpb.NodePool) { np.Management.AutoRepair = false }), fakegke.TextAutoRepairOnChannel},
		{"compact placement over a regional cluster's zones", func() *containerpb.CreateNodePoolRequest {
			r := pool("c", nil)
			r.Parent = "projects/p/locations/us-central1/clusters/r"
			return r
		}(), fakegke.TextPlacementZones},
		{"compact placement on e2", pool("d", func(np *containerpb.NodePool) {
			np.Config.MachineType, np.NetworkConfig, np.Config.AdvancedMachineFeatures = "e2-standard-8", nil, nil
		}), fakegke.TextPlacementMachineType},
		{"Tier_1 below 30 vCPUs", pool("e", func(np *containerpb.NodePool) { np.Config.MachineType = "c2-standard-8" }), fakegke.TextTier1},
		{"Tier_1 without gVNIC", pool("f", func(np *containerpb.NodePool) { np.Config.Gvnic = nil }), fakegke.TextTier1},
		{"threads per core on t2d", pool("g", func(np *containerpb.NodePool) {
			np.Config.MachineType, np.NetworkConfig, np.PlacementPolicy = "t2d-standard-60", nil, nil
		}), fakegke.TextThreadsPerCore},
		{"a sysctl outside GKE's list", pool("h", func(np *containerpb.NodePool) {
			np.Config.LinuxNodeConfig.Sysctls["net.ipv4.neigh.default.gc_thresh1"] = "1"
		}), fakegke.TextInvalidSysctl},
		{"a zone of another region", pool("i", func(np *containerpb.NodePool) { np.Locations = []string{"europe-west4-a"} }), fakegke.TextLocationNotInRegion},
		{"a node service account the caller may not act as", pool("j", func(np *containerpb.NodePool) {
			np.Config.ServiceAccount = "nodes@p.iam.gserviceaccount.com"
		}), fakegke.TextServiceAccountAccess},
	} {
		_, err := c.CreateNodePool(ctx, tc.req)
		want := fakegke.Texts[tc.want]
		st, _ := status.FromError(err)
		prefix, _, _ := strings.Cut(want.Format, "%")
		if st.Code() != want.Code || !strings.HasPrefix(st.Message(), prefix) {
			t.Errorf("%s: %v, want %s %q", tc.name, err, want.Code, want.Format)
		}
	}
	// Off a channel, management off is what GKE takes.
	off := pool("static", func(np *containerpb.NodePool) {
		np.Management = &containerpb.NodeManagement{}
		np.Locations = []string{"us-central1-f"}
	})
	off.Parent = "projects/p/locations/us-central1/clusters/static"
	if _, err := c.CreateNodePool(ctx, off); err != nil {
		t.Errorf("management off on no channel: %v", err)
	}
}

// GetCluster gives the release channel, locations, version and exclusions.
func TestGetCluster(t *testing.T) {
	ctx := context.Background()
	srv := fakegke.Start(t, fakegke.WithCluster(parent))
	c := client(t, srv)
	got, err := c.GetCluster(ctx, &containerpb.GetClusterRequest{Name: parent})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetReleaseChannel().GetChannel() != containerpb.ReleaseChannel_REGULAR || len(got.GetLocations()) != 3 || got.GetCurrentMasterVersion() != fakegke.Version {
		t.Errorf("cluster %v", got)
	}
	policy := &containerpb.MaintenancePolicy{Window: &containerpb.MaintenanceWindow{MaintenanceExclusions: map[string]*containerpb.TimeWindow{
		"campaign": {Options: &containerpb.TimeWindow_MaintenanceExclusionOptions{MaintenanceExclusionOptions: &containerpb.MaintenanceExclusionOptions{
			Scope: containerpb.MaintenanceExclusionOptions_NO_MINOR_OR_NODE_UPGRADES}}},
	}}}
	if _, err := c.SetMaintenancePolicy(ctx, &containerpb.SetMaintenancePolicyRequest{Name: parent, MaintenancePolicy: policy}); err != nil {
		t.Fatal(err)
	}
	got, _ = c.GetCluster(ctx, &containerpb.GetClusterRequest{Name: parent})
	if !proto.Equal(got.GetMaintenancePolicy(), policy) {
		t.Errorf("maintenance policy %v", got.GetMaintenancePolicy())
	}
}

// A busy cluster: the one-operation lock, an upgrade window and the
// concurrent-operations quota, each answered in GKE's words.
func TestBusyCluster(t *testing.T) {
	ctx := context.Background()
	locked := "projects/p/locations/us-central1-a/clusters/locked"
	srv := fakegke.Start(t, fakegke.WithCluster(zonal), fakegke.WithRunningPolls(100),
		fakegke.WithClusterConfig(fakegke.Cluster{Parent: locked, OperationLock: true}))
	c := client(t, srv)
	code := func(err error) string {
		st, _ := status.FromError(err)
		return st.Code().String() + ": " + st.Message()
	}

	first := pool("first", nil)
	first.Parent = locked
	if _, err := c.CreateNodePool(ctx, first); err != nil {
		t.Fatal(err)
	}
	second := pool("second", nil)
	second.Parent = locked
	if _, err := c.CreateNodePool(ctx, second); !strings.Contains(code(err), "is currently creating a node pool for cluster locked. Please wait and try again once it is done.") {
		t.Errorf("under the lock: %s", code(err))
	}

	for i := range fakegke.DefaultConcurrentOperations {
		if _, err := c.CreateNodePool(ctx, pool(string(rune('a'+i)), nil)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateNodePool(ctx, pool("sixth", nil)); code(err) != `ResourceExhausted: Too many operations: cluster "z" hits the concurrent operations quota 5, please try again later.` {
		t.Errorf("past the quota: %s", code(err))
	}

	srv.FinishOperations()
	srv.UpgradeWindow(zonal, 50*time.Millisecond)
	if _, err := c.CreateNodePool(ctx, pool("during", nil)); !strings.Contains(code(err), "is currently upgrading cluster z.") {
		t.Errorf("in the upgrade window: %s", code(err))
	}
	if _, err := c.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: zonal + "/nodePools/a"}); !strings.Contains(code(err), "is currently upgrading cluster z.") {
		t.Errorf("a delete in the upgrade window: %s", code(err))
	}
	time.Sleep(60 * time.Millisecond)
	if _, err := c.CreateNodePool(ctx, pool("after", nil)); err != nil {
		t.Errorf("after the window: %v", err)
	}
}

// A partial stockout leaves the pool RUNNING_WITH_ERROR with GKE's words;
// Reconcile shows RECONCILING for a while, then RUNNING again.
func TestPoolStates(t *testing.T) {
	ctx := context.Background()
	srv := fakegke.Start(t, fakegke.WithCluster(zonal), fakegke.WithRunningPolls(0))
	c := client(t, srv)
	srv.QueueFailures(fakegke.PartialStockout("p", "us-central1-a", "gke-z-partial-1"))
	if _, err := c.CreateNodePool(ctx, pool("partial", nil)); err != nil {
		t.Fatal(err)
	}
	np, _ := c.GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: zonal + "/nodePools/partial"})
	if np.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || !strings.Contains(np.GetConditions()[0].GetMessage(), "does not have enough resources") {
		t.Errorf("partial stockout: %v", np)
	}
	if _, err := c.CreateNodePool(ctx, pool("whole", nil)); err != nil {
		t.Fatal(err)
	}
	srv.FinishOperations()
	srv.Reconcile(zonal, "whole", 30*time.Millisecond)
	np, _ = c.GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: zonal + "/nodePools/whole"})
	if np.GetStatus() != containerpb.NodePool_RECONCILING {
		t.Errorf("reconciling: %v", np.GetStatus())
	}
	time.Sleep(40 * time.Millisecond)
	np, _ = c.GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: zonal + "/nodePools/whole"})
	if np.GetStatus() != containerpb.NodePool_RUNNING {
		t.Errorf("after reconciling: %v", np.GetStatus())
	}
}

// An operation's work is the hook's: DONE when it returns, failed with its
// error.
func TestOperationWork(t *testing.T) {
	ctx := context.Background()
	release := make(chan error)
	srv := fakegke.Start(t, fakegke.WithCluster(zonal), fakegke.WithRunningPolls(0),
		fakegke.WithOperationWork(func(_ context.Context, typ containerpb.Operation_Type, _ string, np *containerpb.NodePool) error {
			if typ != containerpb.Operation_CREATE_NODE_POOL || np.GetName() == "" {
				return errors.New("unexpected work")
			}
			return <-release
		}))
	c := client(t, srv)
	op, err := c.CreateNodePool(ctx, pool("worked", nil))
	if err != nil {
		t.Fatal(err)
	}
	get := func() *containerpb.Operation {
		got, err := c.GetOperation(ctx, &containerpb.GetOperationRequest{Name: "projects/p/locations/us-central1-a/operations/" + op.GetName()})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := get(); got.GetStatus() != containerpb.Operation_RUNNING {
		t.Fatalf("before the work ends: %v", got.GetStatus())
	}
	release <- fakegke.Stockout("p", "us-central1-a")
	waitFor(t, func() bool { return get().GetStatus() == containerpb.Operation_DONE })
	if got := get(); !strings.Contains(got.GetError().GetMessage(), "ZONE_RESOURCE_POOL_EXHAUSTED") {
		t.Errorf("the work's failure: %v", got.GetError())
	}
}
