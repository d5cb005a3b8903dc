package gke

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// spec is a fixture: the S0/S3 MPI pool (two C2 nodes, compact, SMT off,
// gVNIC, Tier_1, busy polling).
func spec(mut ...func(*benchv1.GKEPoolSpec)) *benchv1.GKEPoolSpec {
	s := &benchv1.GKEPoolSpec{
		MachineType:      "c2-standard-60",
		NodeCount:        2,
		NodeLocations:    []string{"us-central1-a"},
		CompactPlacement: &benchv1.CompactPlacement{PolicyName: "mpi-compact"},
		ThreadsPerCore:   ptr.To[int32](1),
		GVNIC:            ptr.To(true),
		NetworkTier:      "TIER_1",
		DiskType:         "pd-ssd",
		DiskSizeGb:       ptr.To[int32](200),
		Spot:             true,
		ImageType:        "UBUNTU_CONTAINERD",
		LinuxNodeConfig: &benchv1.GKELinuxNodeConfig{Sysctls: []benchv1.Sysctl{
			{Name: "net.core.busy_poll", Value: "50"},
			{Name: "net.core.busy_read", Value: "50"},
			{Name: "net.ipv4.tcp_rmem", Value: "4096 87380 16777216"},
		}},
	}
	for _, m := range mut {
		m(s)
	}
	return s
}

// Targets: a zonal cluster on no release channel, the same on REGULAR, and
// a regional cluster with the admin's default zone.
var (
	static   = Target{Cluster: Cluster{"p", "us-central1-a", "c"}, Info: ClusterInfo{Locations: []string{"us-central1-a"}}}
	regular  = Target{Cluster: static.Cluster, Info: ClusterInfo{Channel: "REGULAR", Locations: []string{"us-central1-a"}}}
	regional = Target{
		Cluster:     Cluster{"p", "us-central1", "c"},
		Info:        ClusterInfo{Channel: "REGULAR", Locations: []string{"us-central1-a", "us-central1-b", "us-central1-c"}},
		DefaultZone: "us-central1-f",
	}
)

func TestNodePoolRequest(t *testing.T) {
	tier1 := containerpb.NodeNetworkConfig_NetworkPerformanceConfig_TIER_1
	label := map[string]string{"benchwright.io/pool": "c2-mpi"}
	owner := map[string]string{OwnerLabel: "uid-1"}
	taint := []*containerpb.NodeTaint{{Key: "benchwright.io/pool", Value: "c2-mpi", Effect: containerpb.NodeTaint_NO_SCHEDULE}}
	noUpgrades := &containerpb.NodeManagement{AutoUpgrade: false, AutoRepair: false}
	managed := &containerpb.NodeManagement{AutoUpgrade: true, AutoRepair: true}
	// minimal is the pool of a spec with only what is required.
	minimal := func(m *containerpb.NodeManagement) *containerpb.NodePool {
		return &containerpb.NodePool{
			Name:             "c2-mpi",
			InitialNodeCount: 1,
			Config:           &containerpb.NodeConfig{MachineType: "c3-highcpu-8", Labels: label, ResourceLabels: owner, Taints: taint},
			Management:       m,
		}
	}

	tests := []struct {
		name   string
		spec   *benchv1.GKEPoolSpec
		target Target
		want   *containerpb.NodePool
	}{{
		name:   "every setting",
		spec:   spec(),
		target: static,
		want: &containerpb.NodePool{
			Name:             "c2-mpi",
			InitialNodeCount: 2,
			Locations:        []string{"us-central1-a"},
			Config: &containerpb.NodeConfig{
				MachineType:             "c2-standard-60",
				DiskType:                "pd-ssd",
				DiskSizeGb:              200,
				ImageType:               "UBUNTU_CONTAINERD",
				Spot:                    true,
				Labels:                  label,
				ResourceLabels:          owner,
				Taints:                  taint,
				AdvancedMachineFeatures: &containerpb.AdvancedMachineFeatures{ThreadsPerCore: ptr.To[int64](1)},
				Gvnic:                   &containerpb.VirtualNIC{Enabled: true},
				LinuxNodeConfig: &containerpb.LinuxNodeConfig{Sysctls: map[string]string{
					"net.core.busy_poll": "50", "net.core.busy_read": "50", "net.ipv4.tcp_rmem": "4096 87380 16777216",
				}},
			},
			NetworkConfig: &containerpb.NodeNetworkConfig{
				NetworkPerformanceConfig: &containerpb.NodeNetworkConfig_NetworkPerformanceConfig{TotalEgressBandwidthTier: &tier1},
			},
			PlacementPolicy: &containerpb.NodePool_PlacementPolicy{Type: containerpb.NodePool_PlacementPolicy_COMPACT, PolicyName: "mpi-compact"},
			Management:      noUpgrades,
		},
	}, {
		name:   "only what is required: GKE's defaults for the rest",
		spec:   &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 1},
		target: static,
		want:   minimal(noUpgrades),
	}, {
		name: "compact placement without a policy name, SMT on, gVNIC off",
		spec: spec(func(s *benchv1.GKEPoolSpec) {
			s.CompactPlacement = &benchv1.CompactPlacement{}
			s.ThreadsPerCore = ptr.To[int32](2)
			s.GVNIC = ptr.To(false)
			s.NetworkTier = ""
			s.LinuxNodeConfig = nil
			s.Spot = false
			s.DiskSizeGb = nil
			s.DiskType = ""
			s.ImageType = ""
		}),
		target: static,
		want: &containerpb.NodePool{
			Name:             "c2-mpi",
			InitialNodeCount: 2,
			Locations:        []string{"us-central1-a"},
			Config: &containerpb.NodeConfig{
				MachineType:             "c2-standard-60",
				Labels:                  label,
				ResourceLabels:          owner,
				Taints:                  taint,
				AdvancedMachineFeatures: &containerpb.AdvancedMachineFeatures{ThreadsPerCore: ptr.To[int64](2)},
				Gvnic:                   &containerpb.VirtualNIC{Enabled: false},
			},
			PlacementPolicy: &containerpb.NodePool_PlacementPolicy{Type: containerpb.NodePool_PlacementPolicy_COMPACT},
			Management:      noUpgrades,
		},
	}, {
		name:   "on a release channel: management on, as GKE demands",
		spec:   &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 1},
		target: regular,
		want:   minimal(managed),
	}, {
		name: "a regional cluster: the default zone; the node service account and scopes",
		spec: &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 1, ServiceAccount: "nodes@p.iam.gserviceaccount.com",
			OAuthScopes: []string{"https://www.googleapis.com/auth/cloud-platform"}},
		target: regional,
		want: &containerpb.NodePool{
			Name:             "c2-mpi",
			InitialNodeCount: 1,
			Locations:        []string{"us-central1-f"},
			Config: &containerpb.NodeConfig{MachineType: "c3-highcpu-8", Labels: label, ResourceLabels: owner, Taints: taint,
				ServiceAccount: "nodes@p.iam.gserviceaccount.com", OauthScopes: []string{"https://www.googleapis.com/auth/cloud-platform"}},
			Management: managed,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NodePoolRequest("c2-mpi", "uid-1", tt.spec, tt.target)
			if err != nil {
				t.Fatalf("NodePoolRequest: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, protocmp.Transform()); diff != "" {
				t.Errorf("NodePoolRequest (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodePoolRequestRefusesWhatGKERefuses(t *testing.T) {
	tests := []struct {
		name     string
		pool     string
		spec     *benchv1.GKEPoolSpec
		wantMsgs []string
	}{
		{"no spec", "p", nil, []string{"spec.gke is required"}},
		{"no machine type", "p", spec(func(s *benchv1.GKEPoolSpec) { s.MachineType = "" }), []string{"spec.gke.machineType is required"}},
		{"no nodes", "p", spec(func(s *benchv1.GKEPoolSpec) { s.NodeCount = 0 }), []string{"spec.gke.nodeCount must be at least 1, got 0"}},
		{
			"compact placement on E2", "p", spec(func(s *benchv1.GKEPoolSpec) { s.MachineType = "e2-standard-4" }),
			[]string{"spec.gke.compactPlacement: machine type e2-standard-4 (series e2) does not support compact placement", "c2, c2d, c3"},
		},
		{
			"compact placement over two zones", "p",
			spec(func(s *benchv1.GKEPoolSpec) { s.NodeLocations = []string{"us-central1-a", "us-central1-b"} }),
			[]string{"spec.gke.nodeLocations: a benchmark pool lives in one zone, got 2 (us-central1-a, us-central1-b)"},
		},
		{"TIER_1 without gVNIC", "p", spec(func(s *benchv1.GKEPoolSpec) { s.GVNIC = nil }), []string{"networkTier TIER_1 needs gVNIC: set spec.gke.gvnic: true"}},
		{"TIER_1 with gVNIC off", "p", spec(func(s *benchv1.GKEPoolSpec) { s.GVNIC = ptr.To(false) }), []string{"set spec.gke.gvnic: true"}},
		{"unknown tier", "p", spec(func(s *benchv1.GKEPoolSpec) { s.NetworkTier = "TIER_2" }), []string{`networkTier must be TIER_1 or empty, got "TIER_2"`}},
		{"threads per core 4", "p", spec(func(s *benchv1.GKEPoolSpec) { s.ThreadsPerCore = ptr.To[int32](4) }), []string{"threadsPerCore must be 1 (SMT off) or 2, got 4"}},
		{"threads per core 0", "p", spec(func(s *benchv1.GKEPoolSpec) { s.ThreadsPerCore = ptr.To[int32](0) }), []string{"got 0"}},
		{"small disk", "p", spec(func(s *benchv1.GKEPoolSpec) { s.DiskSizeGb = ptr.To[int32](5) }), []string{"diskSizeGb must be at least 10, got 5"}},
		{
			"sysctls outside GKE's allow-list", "p",
			spec(func(s *benchv1.GKEPoolSpec) {
				s.LinuxNodeConfig.Sysctls = append(s.LinuxNodeConfig.Sysctls,
					benchv1.Sysctl{Name: "net.ipv4.tcp_mem", Value: "1 2 3"}, benchv1.Sysctl{Name: "kernel.numa_balancing", Value: "0"})
			}),
			[]string{"GKE does not allow kernel.numa_balancing, net.ipv4.tcp_mem; set it with a TuningProfile instead"},
		},
		{
			"sysctl twice", "p",
			spec(func(s *benchv1.GKEPoolSpec) {
				s.LinuxNodeConfig.Sysctls = append(s.LinuxNodeConfig.Sysctls, benchv1.Sysctl{Name: "net.core.busy_poll", Value: "0"})
			}),
			[]string{"net.core.busy_poll is set twice"},
		},
		{
			"empty sysctl value", "p",
			spec(func(s *benchv1.GKEPoolSpec) { s.LinuxNodeConfig.Sysctls[0].Value = " " }),
			[]string{"net.core.busy_poll has an empty value"},
		},
		{"pool name too long for a label", strings.Repeat("a", 64), spec(), []string{"longer than 63 characters", "use a shorter name"}},
		{"empty pool name", "", spec(), []string{"the BenchmarkPool name is empty"}},
		{
			"every problem at once", "p",
			spec(func(s *benchv1.GKEPoolSpec) {
				s.MachineType = "n1-standard-8"
				s.GVNIC = nil
				s.ThreadsPerCore = ptr.To[int32](3)
			}),
			[]string{"series n1", "needs gVNIC", "threadsPerCore must be 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np, err := NodePoolRequest(tt.pool, "uid-1", tt.spec, static)
			if err == nil {
				t.Fatalf("NodePoolRequest = %v, want an error", np)
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != InvalidConfig || e.Retryable() {
				t.Fatalf("error %v: want a non-retryable *Error of kind InvalidConfig", err)
			}
			for _, want := range tt.wantMsgs {
				if !strings.Contains(e.Message, want) {
					t.Errorf("message %q does not contain %q", e.Message, want)
				}
			}
		})
	}
}

func TestNodePoolName(t *testing.T) {
	tests := []struct{ pool, want string }{
		{"c2-mpi", "c2-mpi"},
		{"s0-c3-highcpu-176-fio-with-ten-pds", "s0-c3-highcpu-176-fio-with-ten-pds"},
		{"c3.highcpu", "c3-highcpu-" + hash8("c3.highcpu")},
		{"c3-highcpu", "c3-highcpu"},
		{"2nodes", "bp-2nodes-" + hash8("2nodes")},
		{"a-very-long-benchmark-pool-name-for-the-s3-tuning-ladder", "a-very-long-benchmark-pool-name-" + hash8("a-very-long-benchmark-pool-name-for-the-s3-tuning-ladder")},
		// Cut where a '-' would end up before the hash: the '-' goes.
		{"a-name-whose-32nd-character-is-a-dash-x-y", "a-name-whose-32nd-character-is-" + hash8("a-name-whose-32nd-character-is-a-dash-x-y")},
	}
	for _, tt := range tests {
		got := NodePoolName(tt.pool)
		if got != tt.want {
			t.Errorf("NodePoolName(%q) = %q, want %q", tt.pool, got, tt.want)
		}
		if len(got) > MaxNodePoolNameLength || !nodePoolNamePattern.MatchString(got) {
			t.Errorf("NodePoolName(%q) = %q is not a valid GKE node pool name", tt.pool, got)
		}
	}
	if a, b := NodePoolName("a.b"), NodePoolName("a_b"); a == b {
		t.Errorf("NodePoolName(a.b) == NodePoolName(a_b) == %q: two pools would share a node pool", a)
	}
}

// hash8 is the suffix NodePoolName appends: 8 hex digits of SHA-256.
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:8]
}

func TestAllowListsAreSorted(t *testing.T) {
	if !slices.IsSorted(AllowedSysctls()) {
		t.Error("limits.Sysctls must be sorted for AllowedSysctl's binary search")
	}
	for _, name := range []string{"net.core.busy_poll", "net.ipv4.tcp_wmem", "vm.max_map_count", "kernel.shmmax"} {
		if !AllowedSysctl(name) {
			t.Errorf("AllowedSysctl(%q) = false", name)
		}
	}
	for _, name := range []string{"net.ipv4.tcp_mem", "kernel.numa_balancing", "net.core"} {
		if AllowedSysctl(name) {
			t.Errorf("AllowedSysctl(%q) = true", name)
		}
	}
}

func TestClusterFor(t *testing.T) {
	defaults := Cluster{Project: "bench-proj", Location: "us-central1-a", Name: "bench"}
	hpc := Cluster{Project: "other-proj", Location: "europe-west4", Name: "hpc"}
	toHPC := spec(func(s *benchv1.GKEPoolSpec) { s.Project = "other-proj"; s.Location = "europe-west4"; s.Cluster = "hpc" })
	tests := []struct {
		name     string
		defaults Cluster
		allowed  []Cluster
		spec     *benchv1.GKEPoolSpec
		want     Cluster
		wantKind Kind
		wantErr  string
	}{
		{"defaults", defaults, nil, spec(), defaults, 0, ""},
		{"own cluster spelled out", defaults, nil, spec(func(s *benchv1.GKEPoolSpec) { s.Project = "bench-proj"; s.Cluster = "bench" }), defaults, 0, ""},
		{"allowed override", defaults, []Cluster{hpc}, toHPC, hpc, 0, ""},
		{"allowed without defaults", Cluster{}, []Cluster{hpc}, toHPC, hpc, 0, ""},
		{"override not allowed", defaults, nil, toHPC, Cluster{}, NotAllowed,
			"GKE cluster projects/other-proj/locations/europe-west4/clusters/hpc is neither the manager's own cluster nor allowed: an admin may add it to the chart value gke.allowedClusters"},
		{"one coordinate not allowed", defaults, []Cluster{hpc}, spec(func(s *benchv1.GKEPoolSpec) { s.Cluster = "prod" }), Cluster{}, NotAllowed,
			"projects/bench-proj/locations/us-central1-a/clusters/prod is neither"},
		{"nothing configured", Cluster{}, nil, spec(), Cluster{}, InvalidConfig, "project, location, cluster missing or invalid"},
		{"no cluster name", Cluster{Project: "p-123456"}, nil, spec(func(s *benchv1.GKEPoolSpec) { s.Location = "us-east1-b" }), Cluster{}, InvalidConfig, "cluster missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ClusterFor(tt.defaults, tt.allowed, tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || KindOf(err) != tt.wantKind {
					t.Fatalf("ClusterFor error = %v, want %v containing %q", err, tt.wantKind, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ClusterFor = %+v, want %+v", got, tt.want)
			}
		})
	}
	if KindOf(&Error{Kind: NotAllowed}).Reason() != benchv1.ReasonClusterNotAllowed || NotAllowed.Retryable() {
		t.Error("NotAllowed: want reason ClusterNotAllowed, not retryable")
	}
	c := Cluster{Project: "p", Location: "us-central1-a", Name: "c"}
	for got, want := range map[string]string{
		c.Parent():              "projects/p/locations/us-central1-a/clusters/c",
		c.NodePoolPath("np"):    "projects/p/locations/us-central1-a/clusters/c/nodePools/np",
		c.OperationPath("op-1"): "projects/p/locations/us-central1-a/operations/op-1",
		c.OperationPath("projects/p/locations/x/operations/op-2"): "projects/p/locations/x/operations/op-2",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if regionOf("us-central1-a") != "us-central1" || regionOf("us-central1") != "us-central1" {
		t.Error("regionOf: us-central1-a is a zone of us-central1, us-central1 a region")
	}
}

func TestParseCluster(t *testing.T) {
	got, err := ParseCluster("projects/p-1/locations/us-central1/clusters/hpc")
	if want := (Cluster{Project: "p-1", Location: "us-central1", Name: "hpc"}); err != nil || got != want {
		t.Errorf("ParseCluster = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"", "hpc", "projects/p/locations/l/clusters/", "projects/p/zones/l/clusters/c",
		"projects/p/locations/l/clusters/c/nodePools/np", "projects//locations/l/clusters/c"} {
		if _, err := ParseCluster(bad); err == nil {
			t.Errorf("ParseCluster(%q) accepted", bad)
		}
	}
}

// The pool's zone: a cluster with several zones needs nodeLocations or the
// default zone, and a zone of the cluster's region.
func TestNodePoolZones(t *testing.T) {
	noDefault := regional
	noDefault.DefaultZone = ""
	multiZonal := Target{Cluster: static.Cluster, Info: ClusterInfo{Locations: []string{"us-central1-a", "us-central1-b"}}}
	for _, tt := range []struct {
		name   string
		spec   *benchv1.GKEPoolSpec
		target Target
		want   string
	}{
		{"a regional cluster, no zone, no default", &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 1}, noDefault,
			"spec.gke.nodeLocations: cluster projects/p/locations/us-central1/clusters/c has the zones us-central1-a, us-central1-b, us-central1-c and the pool names none"},
		{"a zonal cluster with two zones, no zone", &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 1}, multiZonal,
			"has the zones us-central1-a, us-central1-b and the pool names none"},
		{"a zone of another region", &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-8", NodeCount: 1, NodeLocations: []string{"europe-west4-a"}}, regional,
			"spec.gke.nodeLocations: europe-west4-a is not a zone of the cluster's region us-central1"},
	} {
		_, err := NodePoolRequest("p", "uid-1", tt.spec, tt.target)
		if KindOf(err) != InvalidConfig || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want InvalidConfig with %q", tt.name, err, tt.want)
		}
	}
}
