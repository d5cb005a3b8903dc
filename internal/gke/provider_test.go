package gke_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
)

var zonal = gke.Cluster{Project: "bench-proj", Location: "us-central1-a", Name: "bench"}

// mpiSpec is the S0 MPI pool: two C2 nodes, compact, SMT off, gVNIC, Tier_1.
func mpiSpec() *benchv1.GKEPoolSpec {
	return &benchv1.GKEPoolSpec{
		MachineType:      "c2-standard-60",
		NodeCount:        2,
		CompactPlacement: &benchv1.CompactPlacement{PolicyName: "mpi-compact"},
		ThreadsPerCore:   ptr.To[int32](1),
		GVNIC:            ptr.To(true),
		NetworkTier:      "TIER_1",
		DiskType:         "pd-ssd",
		Spot:             true,
		LinuxNodeConfig: &benchv1.GKELinuxNodeConfig{Sysctls: []benchv1.Sysctl{
			{Name: "net.core.busy_read", Value: "50"}, {Name: "net.core.busy_poll", Value: "50"},
		}},
	}
}

// start serves a fake with the zonal cluster and connects a provider to it.
func start(t *testing.T, opts ...fakegke.Option) (*fakegke.Server, *gke.Provider) {
	t.Helper()
	srv := fakegke.Start(t, append([]fakegke.Option{fakegke.WithCluster(zonal.Parent())}, opts...)...)
	p, err := gke.New(context.Background(), srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return srv, p
}

// onRegular is the zonal cluster as the fake makes it by default: on the
// REGULAR release channel.
var onRegular = gke.Target{Cluster: zonal, Info: gke.ClusterInfo{Channel: "REGULAR", Locations: []string{"us-central1-a"}}}

func request(t *testing.T, pool string, spec *benchv1.GKEPoolSpec) *containerpb.NodePool {
	t.Helper()
	np, err := gke.NodePoolRequest(pool, "uid-1", spec, onRegular)
	if err != nil {
		t.Fatal(err)
	}
	return np
}

// wait polls an operation until it is done and returns its error.
func wait(ctx context.Context, p *gke.Provider, c gke.Cluster, op string) error {
	for {
		done, err := p.Operation(ctx, c, op)
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

func TestCreatePollReadBack(t *testing.T) {
	ctx := context.Background()
	srv, p := start(t, fakegke.WithRunningPolls(2))
	np := request(t, "c2-mpi", mpiSpec())

	op, err := p.Create(ctx, zonal, np)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	// The exact request: compact placement, threads per core, gVNIC, Tier_1,
	// label and taint as NodePoolRequest built them, under the cluster's parent.
	creates := srv.CreateRequests()
	want := &containerpb.CreateNodePoolRequest{Parent: "projects/bench-proj/locations/us-central1-a/clusters/bench", NodePool: np}
	if len(creates) != 1 {
		t.Fatalf("%d CreateNodePool requests, want 1", len(creates))
	}
	if diff := cmp.Diff(want, creates[0], protocmp.Transform()); diff != "" {
		t.Errorf("CreateNodePool request (-want +got):\n%s", diff)
	}
	cfg := creates[0].GetNodePool().GetConfig()
	if creates[0].GetNodePool().GetPlacementPolicy().GetType() != containerpb.NodePool_PlacementPolicy_COMPACT ||
		cfg.GetAdvancedMachineFeatures().GetThreadsPerCore() != 1 || !cfg.GetGvnic().GetEnabled() ||
		creates[0].GetNodePool().GetNetworkConfig().GetNetworkPerformanceConfig().GetTotalEgressBandwidthTier() != containerpb.NodeNetworkConfig_NetworkPerformanceConfig_TIER_1 ||
		cfg.GetLabels()[benchv1.PoolLabel] != "c2-mpi" || cfg.GetTaints()[0].GetEffect() != containerpb.NodeTaint_NO_SCHEDULE {
		t.Errorf("the request lacks a benchmark setting: %v", creates[0])
	}

	// Two polls see RUNNING and the pool PROVISIONING.
	for i := range 2 {
		done, err := p.Operation(ctx, zonal, op)
		if done || err != nil {
			t.Fatalf("poll %d: done=%v err=%v, want running", i, done, err)
		}
		got, err := p.Get(ctx, zonal, "c2-mpi")
		if err != nil {
			t.Fatal(err)
		}
		if e := gke.Effective(got, onRegular.Info); e.Status != "PROVISIONING" || e.Running() {
			t.Fatalf("poll %d: status %s, want PROVISIONING", i, e.Status)
		}
	}
	done, err := p.Operation(ctx, zonal, op)
	if !done || err != nil {
		t.Fatalf("third poll: done=%v err=%v, want done", done, err)
	}

	got, err := p.Get(ctx, zonal, "c2-mpi")
	if err != nil {
		t.Fatal(err)
	}
	eff := gke.Effective(got, onRegular.Info)
	wantEff := gke.EffectiveSettings{
		Settings: benchv1.EffectivePoolSettings{
			MachineType:         "c2-standard-60",
			NodeCount:           2,
			PlacementPolicy:     "COMPACT",
			PlacementPolicyName: "mpi-compact",
			ThreadsPerCore:      1,
			GVNIC:               true,
			NetworkTier:         "TIER_1",
			DiskType:            "pd-ssd",
			DiskSizeGb:          fakegke.DefaultDiskSizeGb, // what GKE reports, not what was asked
			Spot:                true,
			ImageType:           fakegke.DefaultImageType,
			Sysctls:             []benchv1.Sysctl{{Name: "net.core.busy_poll", Value: "50"}, {Name: "net.core.busy_read", Value: "50"}},
			NodeLocations:       []string{"us-central1-a"},
			AutoUpgrade:         true,
			AutoRepair:          true,
			ReleaseChannel:      "REGULAR",
		},
		Status:            "RUNNING",
		Locations:         []string{"us-central1-a"},
		InstanceGroupURLs: []string{"https://www.googleapis.com/compute/v1/projects/bench-proj/zones/us-central1-a/instanceGroupManagers/gke-bench-c2-mpi-grp"},
		Version:           fakegke.Version,
	}
	if diff := cmp.Diff(wantEff, eff); diff != "" {
		t.Errorf("Effective (-want +got):\n%s", diff)
	}
	if !eff.Running() {
		t.Error("Running() = false for a RUNNING pool")
	}
}

func TestDeleteTwice(t *testing.T) {
	ctx := context.Background()
	_, p := start(t)
	op, err := p.Create(ctx, zonal, request(t, "fio", &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 1}))
	if err != nil {
		t.Fatal(err)
	}
	// Deleting while the create runs: GKE refuses, retryably.
	if _, err := p.Delete(ctx, zonal, "fio"); gke.KindOf(err) != gke.Busy || !gke.Retryable(err) {
		t.Fatalf("Delete during create = %v, want a Busy error", err)
	}
	if err := wait(ctx, p, zonal, op); err != nil {
		t.Fatal(err)
	}

	del, err := p.Delete(ctx, zonal, "fio")
	if err != nil || del == "" {
		t.Fatalf("Delete = %q, %v", del, err)
	}
	got, err := p.Get(ctx, zonal, "fio")
	if err != nil || got.GetStatus() != containerpb.NodePool_STOPPING {
		t.Fatalf("Get while deleting = %v, %v; want STOPPING", got.GetStatus(), err)
	}
	if _, err := p.Delete(ctx, zonal, "fio"); gke.KindOf(err) != gke.Busy {
		t.Fatalf("second Delete while the first runs = %v, want Busy", err)
	}
	if err := wait(ctx, p, zonal, del); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Get(ctx, zonal, "fio"); !errors.Is(err, gke.ErrNotFound) {
		t.Fatalf("Get after delete = %v, want ErrNotFound", err)
	}
	again, err := p.Delete(ctx, zonal, "fio")
	if err != nil || again != "" {
		t.Fatalf("Delete of a deleted pool = %q, %v; want no operation and no error", again, err)
	}
}

func TestCreateRefusals(t *testing.T) {
	ctx := context.Background()
	srv, p := start(t)
	np := request(t, "dup", &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 1})
	op, err := p.Create(ctx, zonal, np)
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(ctx, p, zonal, op); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Create(ctx, zonal, np); !errors.Is(err, gke.ErrAlreadyExists) {
		t.Errorf("second Create = %v, want ErrAlreadyExists", err)
	}

	unknown := gke.Cluster{Project: "bench-proj", Location: "us-central1-a", Name: "nope"}
	_, err = p.Create(ctx, unknown, np)
	var e *gke.Error
	if !errors.As(err, &e) || e.Kind != gke.InvalidConfig || e.Message != "Not found: projects/bench-proj/locations/us-central1-a/clusters/nope." {
		t.Errorf("Create in an unknown cluster = %#v, want InvalidConfig with GKE's message", err)
	}

	// A cluster without coordinates is refused before GKE is asked.
	before := len(srv.Requests())
	if _, err := p.Create(ctx, gke.Cluster{Project: "bench-proj"}, np); gke.KindOf(err) != gke.InvalidConfig {
		t.Errorf("Create without cluster coordinates = %v, want InvalidConfig", err)
	}
	if n := len(srv.Requests()); n != before {
		t.Errorf("%d requests sent for refused creates", n-before)
	}
}

func TestInjectedErrorsKeepGKEsMessage(t *testing.T) {
	tests := []struct {
		name    string
		failure fakegke.Failure
		want    gke.Kind
	}{
		{"stockout", fakegke.Stockout("bench-proj", "us-central1-a"), gke.Stockout},
		{"stockout during provisioning", fakegke.StockoutDuringProvisioning("bench-proj", "us-central1-a", "gke-bench-p-1a2b3c4d-x7k2"), gke.Stockout},
		{"insufficient regional quota", fakegke.InsufficientQuota("bench-proj", "C2_CPUS", 120, 96, 24), gke.QuotaExceeded},
		{"quota exceeded", fakegke.QuotaExceeded("C2_CPUS", 24, "us-central1"), gke.QuotaExceeded},
		{"quota exceeded while provisioning", fakegke.QuotaExceeded("C2_CPUS", 24, "us-central1").AsAsync(), gke.QuotaExceeded},
		{"compact placement unsupported", fakegke.CompactPlacementUnsupported("c2-standard-60"), gke.InvalidConfig},
		{"invalid sysctl", fakegke.InvalidSysctl("net.core.busy_poll"), gke.InvalidConfig},
		{"unavailable", fakegke.Unavailable(), gke.Transient},
		{"internal error while provisioning", fakegke.InternalError().AsAsync(), gke.Transient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv, p := start(t)
			srv.QueueFailures(tt.failure)
			op, err := p.Create(ctx, zonal, request(t, "p", mpiSpec()))
			if tt.failure.Async {
				if err != nil {
					t.Fatalf("Create = %v; an asynchronous failure comes through the operation", err)
				}
				err = wait(ctx, p, zonal, op)
				np, gerr := p.Get(ctx, zonal, "p")
				if gerr != nil || np.GetStatus() != containerpb.NodePool_ERROR {
					t.Fatalf("pool after a failed create: %v, %v; want status ERROR", np.GetStatus(), gerr)
				}
				if eff := gke.Effective(np, onRegular.Info); eff.Message != tt.failure.Message {
					t.Errorf("Effective message = %q, want GKE's %q", eff.Message, tt.failure.Message)
				}
				// The pool alone tells the same failure, for when the
				// operation's answer was lost.
				var pe *gke.Error
				if !errors.As(gke.PoolError(np), &pe) || pe.Kind != tt.want || pe.Message != tt.failure.Message {
					t.Errorf("PoolError = %v, want %v / %q", gke.PoolError(np), tt.want, tt.failure.Message)
				}
			}
			var e *gke.Error
			if !errors.As(err, &e) {
				t.Fatalf("error = %v, want *gke.Error", err)
			}
			if e.Kind != tt.want || e.Message != tt.failure.Message {
				t.Errorf("error = %v / %q, want %v / %q", e.Kind, e.Message, tt.want, tt.failure.Message)
			}
			if e.Kind.Reason() != tt.want.Reason() || e.Retryable() != tt.want.Retryable() {
				t.Errorf("reason %s retryable %v", e.Kind.Reason(), e.Retryable())
			}
		})
	}
}

func TestInjectHookSeesTheRequest(t *testing.T) {
	ctx := context.Background()
	srv, p := start(t)
	var seen *containerpb.CreateNodePoolRequest
	srv.SetInject(func(req *containerpb.CreateNodePoolRequest) error {
		seen = proto.Clone(req).(*containerpb.CreateNodePoolRequest)
		if req.GetNodePool().GetPlacementPolicy() != nil && req.GetNodePool().GetConfig().GetMachineType() == "c2-standard-60" {
			return fakegke.CompactPlacementUnsupported("c2-standard-60")
		}
		return nil
	})
	_, err := p.Create(ctx, zonal, request(t, "p", mpiSpec()))
	if gke.KindOf(err) != gke.InvalidConfig || seen.GetNodePool().GetName() != "p" {
		t.Fatalf("Create = %v (hook saw %v), want InvalidConfig", err, seen)
	}
	if pools, err := p.List(ctx, zonal); err != nil || len(pools) != 0 {
		t.Fatalf("List = %v, %v; a refused create leaves nothing", pools, err)
	}
}

// The cluster as GKE describes it: channel, zones, version, and the
// maintenance exclusion that holds upgrades back now; kept until a fresh read.
func TestClusterInfo(t *testing.T) {
	ctx := context.Background()
	hour := time.Now().Add(time.Hour)
	regional := "projects/bench-proj/locations/us-central1/clusters/r"
	srv, p := start(t, fakegke.WithClusterConfig(fakegke.Cluster{Parent: regional, Channel: containerpb.ReleaseChannel_STABLE,
		Exclusions: map[string]*containerpb.TimeWindow{
			"later": {StartTime: timestamppb.New(hour), EndTime: timestamppb.New(hour.Add(time.Hour)), Options: noMinorOrNode()},
			"now":   {StartTime: timestamppb.Now(), EndTime: timestamppb.New(hour), Options: noMinorOrNode()},
			"minor": {Options: &containerpb.TimeWindow_MaintenanceExclusionOptions{MaintenanceExclusionOptions: &containerpb.MaintenanceExclusionOptions{
				Scope: containerpb.MaintenanceExclusionOptions_NO_MINOR_UPGRADES}}},
		}}))
	c, _ := gke.ParseCluster(regional)
	got, err := p.Cluster(ctx, c, false)
	want := gke.ClusterInfo{Channel: "STABLE", Locations: []string{"us-central1-a", "us-central1-b", "us-central1-c"}, Version: fakegke.Version, Exclusion: "now"}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("Cluster = %+v, %v; want %+v", got, err, want)
	}
	reads := len(srv.Requests())
	if _, err := p.Cluster(ctx, c, false); err != nil || len(srv.Requests()) != reads {
		t.Errorf("a second read asked GKE again (%v)", err)
	}
	if got, _ := p.Cluster(ctx, zonal, true); got.Channel != "REGULAR" || got.Exclusion != "" {
		t.Errorf("the default cluster: %+v", got)
	}
	if _, err := p.Cluster(ctx, gke.Cluster{Project: "bench-proj", Location: "us-central1-a", Name: "nope"}, true); gke.KindOf(err) != gke.InvalidConfig {
		t.Errorf("an unknown cluster: %v, want InvalidConfig", err)
	}
}

func noMinorOrNode() *containerpb.TimeWindow_MaintenanceExclusionOptions {
	return &containerpb.TimeWindow_MaintenanceExclusionOptions{MaintenanceExclusionOptions: &containerpb.MaintenanceExclusionOptions{
		Scope: containerpb.MaintenanceExclusionOptions_NO_MINOR_OR_NODE_UPGRADES}}
}

// ExcludeUpgrades adds the exclusion that holds minor and node upgrades back,
// keeping the policy's others.
func TestExcludeUpgrades(t *testing.T) {
	ctx := context.Background()
	srv, p := start(t)
	if got, _ := p.Cluster(ctx, zonal, true); got.Exclusion != "" {
		t.Fatalf("before: %+v", got)
	}
	got, err := p.ExcludeUpgrades(ctx, zonal, 30*24*time.Hour)
	if err != nil || got.Exclusion != gke.ExclusionName {
		t.Fatalf("ExcludeUpgrades = %+v, %v", got, err)
	}
	var set *containerpb.SetMaintenancePolicyRequest
	for _, r := range srv.Requests() {
		if s, ok := r.(*containerpb.SetMaintenancePolicyRequest); ok {
			set = s
		}
	}
	w := set.GetMaintenancePolicy().GetWindow().GetMaintenanceExclusions()[gke.ExclusionName]
	if d := w.GetEndTime().AsTime().Sub(w.GetStartTime().AsTime()); d != 30*24*time.Hour ||
		w.GetMaintenanceExclusionOptions().GetScope() != containerpb.MaintenanceExclusionOptions_NO_MINOR_OR_NODE_UPGRADES {
		t.Errorf("exclusion %v", w)
	}
}
