package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PoolProvider says where a pool's nodes come from.
// +kubebuilder:validation:Enum=gke;existing
type PoolProvider string

// Pool providers.
const (
	// ProviderGKE creates a GKE node pool.
	ProviderGKE PoolProvider = "gke"
	// ProviderExisting labels and taints nodes that already exist.
	ProviderExisting PoolProvider = "existing"
)

// BenchmarkPool condition types and reasons.
const (
	// PoolConditionReady is True when every node of the pool is Ready, labelled
	// and tainted.
	PoolConditionReady = "Ready"
	// PoolConditionProvisioning is True while the node pool is created or resized.
	PoolConditionProvisioning = "Provisioning"
	// PoolConditionDeleting is True while the node pool is deleted, or while
	// a deleted pool keeps its nodes for a TuningProfile that restores them.
	PoolConditionDeleting = "Deleting"

	ReasonNodesReady       = "NodesReady"
	ReasonNodesNotReady    = "NodesNotReady"
	ReasonCreating         = "Creating"
	ReasonStockout         = "Stockout"
	ReasonQuotaExceeded    = "QuotaExceeded"
	ReasonInvalidConfig    = "InvalidConfiguration"
	ReasonProviderError    = "ProviderError"
	ReasonIdleExpired      = "IdleExpired"
	ReasonNoMatchingNodes  = "NoMatchingNodes"
	ReasonDeletingNodePool = "DeletingNodePool"
	// ReasonClusterNotAllowed: spec.gke names a cluster other than the
	// manager's own that the admin did not allow (chart gke.allowedClusters).
	ReasonClusterNotAllowed = "ClusterNotAllowed"
	// ReasonClusterBusy: GKE refused a node-pool call because another
	// operation runs on the cluster (an upgrade, a repair, another node
	// pool); the call is retried.
	ReasonClusterBusy = "ClusterBusy"
	// ReasonReconciling: the node pool runs while GKE reconciles it.
	ReasonReconciling = "Reconciling"

	// PoolConditionUpgradesExcluded is True when GKE will not upgrade the
	// pool's nodes during a campaign: auto-upgrade is off (a cluster on no
	// release channel), or a maintenance exclusion holds minor and node
	// upgrades back.
	PoolConditionUpgradesExcluded = "UpgradesExcluded"
	ReasonAutoUpgradeOff          = "AutoUpgradeOff"
	ReasonMaintenanceExclusion    = "MaintenanceExclusion"
	ReasonNoMaintenanceExclusion  = "NoMaintenanceExclusion"
)

// BenchmarkPoolSpec says which nodes benchmarks run on.
// +kubebuilder:validation:XValidation:rule="self.provider != 'gke' || (has(self.gke) && !has(self.existing))",message="provider gke needs spec.gke and no spec.existing"
// +kubebuilder:validation:XValidation:rule="self.provider != 'existing' || (has(self.existing) && !has(self.gke))",message="provider existing needs spec.existing; spec.gke is only allowed with provider gke"
// +kubebuilder:validation:XValidation:rule="self.provider == oldSelf.provider",message="provider cannot change: create a new pool"
// +kubebuilder:validation:XValidation:rule="!has(self.gke) || !has(oldSelf.gke) || self.gke == oldSelf.gke",message="gke settings cannot change once the node pool exists: create a new pool"
type BenchmarkPoolSpec struct {
	// provider is gke (create a GKE node pool) or existing (use labelled nodes).
	// +required
	Provider PoolProvider `json:"provider"`

	// gke configures the GKE node pool; only with provider gke.
	// +optional
	GKE *GKEPoolSpec `json:"gke,omitempty"`

	// existing selects existing nodes; only with provider existing.
	// +optional
	Existing *ExistingPoolSpec `json:"existing,omitempty"`

	// ttlSecondsAfterIdle deletes the GKE node pool (and the BenchmarkPool) after it
	// was idle for this long: Ready (or Ready once), with no benchmark and no
	// campaign cell holding it or waiting for it. A pool that was never Ready
	// is not idle. Unset: keep until deleted.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2592000
	TTLSecondsAfterIdle *int32 `json:"ttlSecondsAfterIdle,omitempty"`
}

// ExistingPoolSpec selects nodes that already exist. benchwright labels and taints
// them while the pool exists and removes both when it is deleted.
type ExistingPoolSpec struct {
	// nodeSelector selects the nodes by label.
	// +required
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=16
	NodeSelector map[string]string `json:"nodeSelector"`

	// taint adds the pool's NoSchedule taint, so only benchmarks land there. Default true.
	// +optional
	Taint *bool `json:"taint,omitempty"`
}

// GKEDiskType is a node boot disk type.
// +kubebuilder:validation:Enum=pd-standard;pd-balanced;pd-ssd;pd-extreme;hyperdisk-balanced
type GKEDiskType string

// GKEPoolSpec is a GKE node pool built for benchmarks.
// +kubebuilder:validation:XValidation:rule="!has(self.compactPlacement) || self.nodeCount >= 2",message="compactPlacement places several nodes close together: it needs nodeCount >= 2"
// +kubebuilder:validation:XValidation:rule="!has(self.networkTier) || self.networkTier != 'TIER_1' || (has(self.gvnic) && self.gvnic)",message="networkTier TIER_1 needs gvnic: true"
//
// GKE's own limits, each from the page that documents it:
// compact placement, https://cloud.google.com/kubernetes-engine/docs/how-to/compact-placement#limitations
// ("Available only on C2, C2D, C3, C3D, C4A, C4D, C4N, H3, H4D, N2, N2D, and Z4D machine types",
// with A100, L4 and H100 GPUs: A2, G2, A3); the page's node cap (1,500) is above nodeCount's
// maximum, GKE's 1,000 nodes per zone and pool.
// +kubebuilder:validation:XValidation:rule="!has(self.compactPlacement) || self.machineType.matches('^(a2|a3|c2|c2d|c3|c3d|c4a|c4d|c4n|g2|h3|h4d|n2|n2d|z4d)-')",message="compactPlacement: GKE offers compact placement only on the machine series C2, C2D, C3, C3D, C4A, C4D, C4N, H3, H4D, N2, N2D, Z4D and the GPU series A2, A3, G2: choose such a machineType or remove compactPlacement"
// Tier_1, https://cloud.google.com/compute/docs/networking/configure-vm-with-high-bandwidth-configuration
// ("only supported on N2, N2D, C2, C2D, or C3 VMs that have at least 30 vCPUs").
// +kubebuilder:validation:XValidation:rule="!has(self.networkTier) || self.networkTier != 'TIER_1' || self.machineType.matches('^(n2|n2d|c2|c2d|c3)-[a-z]+-([3-9][0-9]|[1-9][0-9][0-9]+)(-|$)')",message="networkTier TIER_1: GKE gives Tier_1 bandwidth only to N2, N2D, C2, C2D and C3 machine types with at least 30 vCPUs (such as c2-standard-30 or c3-highcpu-44): choose such a machineType or remove networkTier"
// Threads per core, https://cloud.google.com/compute/docs/instances/set-threads-per-core
// (not on T2D, T2A, the Arm C4A with one thread per core, shared-core machine types, or
// fewer than 2 vCPUs).
// +kubebuilder:validation:XValidation:rule="!has(self.threadsPerCore) || !(self.machineType.matches('^(t2d|t2a|c4a)-') || self.machineType.matches('^(e2-micro|e2-small|e2-medium|f1-micro|g1-small)$') || self.machineType.matches('^[a-z0-9]+-[a-z]+-1(-|$)'))",message="threadsPerCore: GKE cannot set threads per core on T2D, T2A or C4A (one thread per core), on shared-core machine types (e2-micro, e2-small, e2-medium, f1-micro, g1-small) or below 2 vCPUs: remove threadsPerCore or choose another machineType"
type GKEPoolSpec struct {
	// project of the cluster. Default: the manager's configuration. A cluster
	// other than the manager's own must be one the admin allows (chart value
	// gke.allowedClusters), else the pool is not Ready (ClusterNotAllowed).
	// +optional
	// +kubebuilder:validation:MaxLength=30
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z][-a-z0-9]{4,28}[a-z0-9]$')",message="project is a Google Cloud project ID such as my-project-123"
	Project string `json:"project,omitempty"`

	// location of the cluster (region or zone). Default: the manager's configuration.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]+-[a-z]+[0-9]+(-[a-z])?$')",message="location is a region such as us-central1 or a zone such as us-central1-a"
	Location string `json:"location,omitempty"`

	// cluster name. Default: the manager's configuration.
	// +optional
	// +kubebuilder:validation:MaxLength=40
	Cluster string `json:"cluster,omitempty"`

	// nodeLocations is the zone of the nodes, one of the cluster's region. On a
	// regional cluster, or a zonal one with several zones, a pool without it
	// takes the manager's default zone (chart gke.defaultZone); without that,
	// GKE would create nodeCount nodes in every zone of the cluster, so the
	// pool is refused.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1
	// +kubebuilder:validation:items:MaxLength=64
	// +kubebuilder:validation:items:Pattern=`^[a-z]+-[a-z]+[0-9]+-[a-z]$`
	NodeLocations []string `json:"nodeLocations,omitempty"`

	// machineType of the nodes, e.g. c3-highcpu-176.
	// +required
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z][a-z0-9]*(-[a-z0-9]+)+$')",message="machineType is a Compute Engine machine type such as c2-standard-60 or c3-highcpu-176"
	MachineType string `json:"machineType"`

	// nodeCount is the number of nodes.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	NodeCount int32 `json:"nodeCount"`

	// compactPlacement asks for placementPolicy COMPACT: nodes close together on
	// the network, for lower MPI latency.
	// +optional
	CompactPlacement *CompactPlacement `json:"compactPlacement,omitempty"`

	// threadsPerCore is 1 to turn SMT (hyper-threading) off, 2 to keep it.
	// +optional
	// +kubebuilder:validation:Enum=1;2
	ThreadsPerCore *int32 `json:"threadsPerCore,omitempty"`

	// gvnic enables Google Virtual NIC.
	// +optional
	GVNIC *bool `json:"gvnic,omitempty"`

	// networkTier TIER_1 raises the egress bandwidth limit (needs gvnic).
	// +optional
	// +kubebuilder:validation:Enum=TIER_1
	NetworkTier string `json:"networkTier,omitempty"`

	// diskType of the boot disk.
	// +optional
	DiskType GKEDiskType `json:"diskType,omitempty"`

	// diskSizeGb of the boot disk.
	// +optional
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=65536
	DiskSizeGb *int32 `json:"diskSizeGb,omitempty"`

	// spot nodes are cheaper and can be preempted (a preempted node fails its
	// repetition, which is retried).
	// +optional
	Spot bool `json:"spot,omitempty"`

	// imageType of the nodes, e.g. COS_CONTAINERD or UBUNTU_CONTAINERD.
	// +optional
	// +kubebuilder:validation:Enum=COS_CONTAINERD;UBUNTU_CONTAINERD
	ImageType string `json:"imageType,omitempty"`

	// linuxNodeConfig sets kernel parameters through GKE (only GKE's allow-list;
	// use a TuningProfile for anything else).
	// +optional
	LinuxNodeConfig *GKELinuxNodeConfig `json:"linuxNodeConfig,omitempty"`

	// serviceAccount is the Google service account of the nodes. Unset: GKE's
	// default, the Compute Engine default service account, which hardened
	// projects disable. The manager's own identity needs
	// iam.serviceAccounts.actAs on it (roles/iam.serviceAccountUser).
	// +optional
	// +kubebuilder:validation:MaxLength=100
	// +kubebuilder:validation:Pattern=`^[a-z0-9][-a-z0-9]*@[-a-z0-9.]+\.gserviceaccount\.com$`
	ServiceAccount string `json:"serviceAccount,omitempty"`

	// oauthScopes are the nodes' access scopes. Unset: GKE's defaults. With a
	// serviceAccount, https://www.googleapis.com/auth/cloud-platform lets IAM
	// alone decide.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=128
	// +kubebuilder:validation:items:Pattern=`^https://www\.googleapis\.com/auth/[a-z][-a-z._]*$`
	OAuthScopes []string `json:"oauthScopes,omitempty"`
}

// CompactPlacement configures a compact placement policy.
type CompactPlacement struct {
	// policyName names an existing resource policy to use; GKE creates one when
	// it is empty.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="policyName is a Compute Engine resource policy name: lower-case letters, digits and '-'"
	PolicyName string `json:"policyName,omitempty"`
}

// GKELinuxNodeConfig holds the kernel parameters GKE sets on the nodes.
type GKELinuxNodeConfig struct {
	// sysctls to set; GKE accepts only its allow-list, the one
	// google.container.v1 LinuxNodeConfig documents (cloud.google.com/go/container
	// v1.46.0); the manager also checks the cluster's version against the version
	// that added each (internal/gke).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(s, s.name in ['fs.aio-max-nr', 'fs.file-max', 'fs.inotify.max_user_instances', 'fs.inotify.max_user_watches', 'fs.nr_open', 'kernel.dmesg_restrict', 'kernel.kptr_restrict', 'kernel.perf_event_paranoid', 'kernel.sched_rt_runtime_us', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.softlockup_panic', 'kernel.sysrq', 'kernel.yama.ptrace_scope', 'net.core.busy_poll', 'net.core.busy_read', 'net.core.netdev_max_backlog', 'net.core.optmem_max', 'net.core.rmem_default', 'net.core.rmem_max', 'net.core.somaxconn', 'net.core.wmem_default', 'net.core.wmem_max', 'net.ipv4.tcp_congestion_control', 'net.ipv4.tcp_ecn', 'net.ipv4.tcp_max_orphans', 'net.ipv4.tcp_max_tw_buckets', 'net.ipv4.tcp_mtu_probing', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_syn_retries', 'net.ipv4.tcp_tw_reuse', 'net.ipv4.tcp_wmem', 'net.netfilter.nf_conntrack_acct', 'net.netfilter.nf_conntrack_buckets', 'net.netfilter.nf_conntrack_max', 'net.netfilter.nf_conntrack_tcp_timeout_close_wait', 'net.netfilter.nf_conntrack_tcp_timeout_established', 'net.netfilter.nf_conntrack_tcp_timeout_time_wait', 'vm.dirty_background_bytes', 'vm.dirty_background_ratio', 'vm.dirty_bytes', 'vm.dirty_expire_centisecs', 'vm.dirty_ratio', 'vm.dirty_writeback_centisecs', 'vm.max_map_count', 'vm.min_free_kbytes', 'vm.overcommit_memory', 'vm.overcommit_ratio', 'vm.swappiness', 'vm.vfs_cache_pressure', 'vm.watermark_scale_factor'])",message="GKE's linuxNodeConfig accepts only its allow-list (net.core.busy_poll, net.core.busy_read, net.core.rmem_max, net.ipv4.tcp_rmem, ...; not net.ipv4.tcp_mem); set other sysctls with a TuningProfile"
	Sysctls []Sysctl `json:"sysctls,omitempty"`
}

// BenchmarkPoolStatus is the state of the pool's nodes.
type BenchmarkPoolStatus struct {
	// conditions are Ready, Provisioning, Deleting and, for a GKE pool,
	// UpgradesExcluded.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// state is a one-word summary for `kubectl get`: Provisioning, Ready, NotReady,
	// Failed or Deleting.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	State string `json:"state,omitempty"`

	// nodePoolName is the GKE node pool's name.
	// +optional
	// +kubebuilder:validation:MaxLength=40
	NodePoolName string `json:"nodePoolName,omitempty"`

	// readyNodes counts the pool's nodes that are Ready.
	// +optional
	ReadyNodes int32 `json:"readyNodes,omitempty"`

	// nodes are the names of the pool's nodes.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=253
	Nodes []string `json:"nodes,omitempty"`

	// effective is what GKE reports for the node pool, not what was asked.
	// +optional
	Effective *EffectivePoolSettings `json:"effective,omitempty"`

	// activeBenchmark is the benchmark that holds the pool now (kind/namespace/name).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ActiveBenchmark string `json:"activeBenchmark,omitempty"`

	// queueLength counts benchmarks waiting for the pool.
	// +optional
	QueueLength int32 `json:"queueLength,omitempty"`

	// lastUsedTime is when a benchmark or a campaign cell last held the pool,
	// or when it was first Ready: the idle clock (ttlSecondsAfterIdle) runs
	// from it. Unset until the pool is first Ready.
	// +optional
	LastUsedTime *metav1.Time `json:"lastUsedTime,omitempty"`
}

// EffectivePoolSettings are the node settings as the provider reports them.
type EffectivePoolSettings struct {
	// machineType of the nodes.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	MachineType string `json:"machineType,omitempty"`
	// nodeCount as GKE reports it.
	// +optional
	NodeCount int32 `json:"nodeCount,omitempty"`
	// placementPolicy is COMPACT when the nodes are compactly placed.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	PlacementPolicy string `json:"placementPolicy,omitempty"`
	// placementPolicyName is the resource policy in use.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	PlacementPolicyName string `json:"placementPolicyName,omitempty"`
	// threadsPerCore as GKE reports it (1 = SMT off).
	// +optional
	ThreadsPerCore int32 `json:"threadsPerCore,omitempty"`
	// gvnic is true when gVNIC is enabled.
	// +optional
	GVNIC bool `json:"gvnic,omitempty"`
	// networkTier is the total egress bandwidth tier.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	NetworkTier string `json:"networkTier,omitempty"`
	// diskType of the boot disk.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	DiskType string `json:"diskType,omitempty"`
	// diskSizeGb of the boot disk.
	// +optional
	DiskSizeGb int32 `json:"diskSizeGb,omitempty"`
	// spot is true for spot nodes.
	// +optional
	Spot bool `json:"spot,omitempty"`
	// imageType of the nodes.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	ImageType string `json:"imageType,omitempty"`
	// sysctls as set by GKE.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	Sysctls []Sysctl `json:"sysctls,omitempty"`
	// nodeLocations are the zones of the nodes.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=64
	NodeLocations []string `json:"nodeLocations,omitempty"`
	// autoUpgrade is true when GKE may upgrade the nodes by itself.
	// +optional
	AutoUpgrade bool `json:"autoUpgrade,omitempty"`
	// autoRepair is true when GKE may recreate an unhealthy node.
	// +optional
	AutoRepair bool `json:"autoRepair,omitempty"`
	// releaseChannel is the cluster's release channel (RAPID, REGULAR, STABLE,
	// EXTENDED); empty on no channel.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	ReleaseChannel string `json:"releaseChannel,omitempty"`
	// serviceAccount is the nodes' service account.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	ServiceAccount string `json:"serviceAccount,omitempty"`
}

// BenchmarkPool is a set of nodes reserved for benchmarks: a GKE node pool it
// creates, or existing nodes it labels and taints.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=bpool,categories=benchwright
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="Machine",type=string,JSONPath=`.spec.gke.machineType`
// +kubebuilder:printcolumn:name="Placement",type=string,JSONPath=`.status.effective.placementPolicy`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyNodes`
// +kubebuilder:printcolumn:name="Queue",type=integer,JSONPath=`.status.queueLength`,priority=1
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BenchmarkPool struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is which nodes to use or create.
	// +required
	Spec BenchmarkPoolSpec `json:"spec"`

	// status is the state of the nodes.
	// +optional
	Status BenchmarkPoolStatus `json:"status,omitempty"`
}

// BenchmarkPoolList is a list of BenchmarkPools.
//
// +kubebuilder:object:root=true
type BenchmarkPoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkPool `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &BenchmarkPool{}, &BenchmarkPoolList{})
}
