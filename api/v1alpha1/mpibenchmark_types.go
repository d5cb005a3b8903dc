package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MPISuite names the benchmark suite an MPIBenchmark runs.
// +kubebuilder:validation:Enum=osu;imb;ior
type MPISuite string

// MPI suites.
const (
	SuiteOSU MPISuite = "osu"
	SuiteIMB MPISuite = "imb"
	SuiteIOR MPISuite = "ior"
)

// MPIBenchmarkSpec is which MPI tests to run, on how many nodes and ranks, with
// which MPI.
// +kubebuilder:validation:XValidation:rule="has(self.pool) != has(self.nodeSelector)",message="set exactly one of pool (a BenchmarkPool) and nodeSelector"
// +kubebuilder:validation:XValidation:rule="self.warmupRepetitions < self.repetitions",message="warmupRepetitions must be smaller than repetitions, or no repetition is left to count"
// +kubebuilder:validation:XValidation:rule="self.suite != 'osu' || self.tests.all(t, t in ['osu_latency', 'osu_bw', 'osu_bibw', 'osu_latency_mt', 'osu_multi_lat', 'osu_mbw_mr', 'osu_allreduce', 'osu_allgather', 'osu_allgatherv', 'osu_alltoall', 'osu_alltoallv', 'osu_barrier', 'osu_bcast', 'osu_gather', 'osu_gatherv', 'osu_reduce', 'osu_reduce_scatter', 'osu_scatter', 'osu_scatterv'])",message="osu tests are OSU micro-benchmark names such as osu_latency, osu_bw, osu_bibw, osu_multi_lat, osu_allreduce or osu_alltoall"
// +kubebuilder:validation:XValidation:rule="self.suite != 'imb' || self.tests.all(t, t in ['PingPong', 'PingPing', 'Sendrecv', 'Exchange', 'Uniband', 'Biband', 'Allreduce', 'Reduce', 'Reduce_scatter', 'Reduce_scatter_block', 'Allgather', 'Allgatherv', 'Gather', 'Gatherv', 'Scatter', 'Scatterv', 'Alltoall', 'Alltoallv', 'Bcast', 'Barrier'])",message="imb tests are IMB-MPI1 benchmark names such as PingPong, PingPing, Sendrecv, Exchange, Allreduce or Alltoall"
// +kubebuilder:validation:XValidation:rule="self.suite != 'ior' || self.tests.all(t, t in ['write', 'read'])",message="ior tests are write and/or read"
// +kubebuilder:validation:XValidation:rule="(self.suite == 'ior') == has(self.ior)",message="ior settings are required with suite ior and only allowed with it"
// +kubebuilder:validation:XValidation:rule="!self.tests.exists(t, t in ['osu_latency', 'osu_bw', 'osu_bibw', 'osu_latency_mt']) || self.layout.nodes * self.layout.ranksPerNode == 2",message="point-to-point OSU tests (osu_latency, osu_bw, osu_bibw) need exactly 2 ranks in total: nodes 1 x ranksPerNode 2 (on-node) or nodes 2 x ranksPerNode 1 (off-node); use osu_multi_lat or osu_mbw_mr for more pairs"
// +kubebuilder:validation:XValidation:rule="!self.tests.exists(t, t in ['PingPong', 'PingPing']) || self.layout.nodes * self.layout.ranksPerNode == 2 || (has(self.mpi.extraArgs) && '-multi' in self.mpi.extraArgs)",message="IMB PingPong and PingPing need exactly 2 ranks in total (nodes 2 x ranksPerNode 1 for inter-node), or extraArgs [-multi, '0'] for several pairs"
// +kubebuilder:validation:XValidation:rule="!self.tests.exists(t, t in ['osu_multi_lat', 'osu_mbw_mr', 'Uniband', 'Biband']) || (self.layout.nodes * self.layout.ranksPerNode) % 2 == 0",message="multi-pair tests (osu_multi_lat, osu_mbw_mr, Uniband, Biband) need an even number of ranks"
// +kubebuilder:validation:XValidation:rule="self.suite != 'ior' || self.layout.nodes == 1 || (has(self.ior) && has(self.ior.claimName))",message="IOR on several nodes needs ior.claimName, a ReadWriteMany PVC mounted on every worker: with each node's own emptyDir a shared file is not shared and the read phase (-C) reads files another node wrote"
// +kubebuilder:validation:XValidation:rule="self.suite != 'ior' || !has(self.messageSizes)",message="messageSizes apply to osu and imb; IOR sizes are ior.transferSize and ior.blockSize"
// +kubebuilder:validation:XValidation:rule="self.suite != 'imb' || !has(self.messageSizes) || ((self.messageSizes.min == 0 || self.messageSizes.min in [1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304,8388608,16777216,33554432,67108864,134217728,268435456,536870912,1073741824]) && self.messageSizes.max in [1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304,8388608,16777216,33554432,67108864,134217728,268435456,536870912,1073741824])",message="IMB takes message sizes as powers of two (-msglog): messageSizes.min and max must be 0, 1, 2, 4, ... 1073741824"
// +kubebuilder:validation:XValidation:rule="self.suite == 'osu' || !has(self.warmupIterations)",message="warmupIterations (-x) apply to osu only: IMB-MPI1 warms up on its own and has no option for it, IOR has none"
// +kubebuilder:validation:XValidation:rule="self.suite == 'osu' || !has(self.fullStatistics) || !self.fullStatistics",message="fullStatistics (-f) is an OSU option"
type MPIBenchmarkSpec struct {
	BenchmarkSpecCommon `json:",inline"`

	// suite is osu (OSU micro-benchmarks), imb (Intel MPI Benchmarks, IMB-MPI1) or
	// ior (parallel file I/O).
	// +required
	Suite MPISuite `json:"suite"`

	// tests to run, in order, each in every repetition: OSU binary names
	// (osu_latency), IMB benchmark names (PingPong) or IOR phases (write, read).
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=24
	// +kubebuilder:validation:items:MaxLength=32
	Tests []string `json:"tests"`

	// layout is how ranks are placed on nodes and CPUs.
	// +required
	Layout MPILayout `json:"layout"`

	// mpi selects the MPI implementation, image, environment and extra mpirun
	// arguments.
	// +required
	MPI MPISettings `json:"mpi"`

	// messageSizes bounds the message sizes in bytes (OSU -m, IMB -msglog).
	// +optional
	MessageSizes *MessageSizes `json:"messageSizes,omitempty"`

	// iterations per message size (OSU -i, IMB -iter), the same for every
	// size and test. Unset, each test keeps its own counts: OSU times latency
	// tests over 10000 iterations up to 8 KiB and 1000 above, bandwidth tests
	// over 100 and 20 (windows of 64 messages). Fewer than OSU's latency
	// count makes a small-message figure an average over well under a
	// millisecond, which one descheduling of a rank skews; more than its
	// bandwidth count multiplies a bandwidth test's run time.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	Iterations *int32 `json:"iterations,omitempty"`

	// warmupIterations per message size before timing starts (OSU -x).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	WarmupIterations *int32 `json:"warmupIterations,omitempty"`

	// fullStatistics asks OSU for min/max/iterations columns (-f).
	// +optional
	FullStatistics *bool `json:"fullStatistics,omitempty"`

	// ior configures IOR; required with suite ior.
	// +optional
	IOR *IORSettings `json:"ior,omitempty"`
}

// MPILayout places ranks: nodes x ranksPerNode, bound to CPUs.
// +kubebuilder:validation:XValidation:rule="!has(self.cpuBinding) || self.cpuBinding.policy != 'explicit' || (has(self.cpuBinding.cpus) && size(self.cpuBinding.cpus) == self.ranksPerNode)",message="explicit cpuBinding needs one CPU per rank on a node: cpuBinding.cpus must have ranksPerNode entries"
type MPILayout struct {
	// nodes is the number of nodes (one MPI worker pod each).
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	Nodes int32 `json:"nodes"`

	// ranksPerNode is the number of MPI ranks on each node (slotsPerWorker).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=512
	RanksPerNode int32 `json:"ranksPerNode,omitempty"`

	// cpuBinding pins ranks to CPUs. Default: core.
	// +optional
	CPUBinding *CPUBinding `json:"cpuBinding,omitempty"`

	// hostNetwork runs workers in the node's network namespace (no pod network
	// overlay in the path). The cluster's admin must allow it (chart value
	// allowHostNetwork); otherwise the benchmark fails InvalidSpec.
	// +optional
	HostNetwork bool `json:"hostNetwork,omitempty"`
}

// CPUBindingPolicy says how ranks are bound to CPUs.
// +kubebuilder:validation:Enum=none;core;socket;explicit
type CPUBindingPolicy string

// CPU binding policies.
const (
	BindNone     CPUBindingPolicy = "none"
	BindCore     CPUBindingPolicy = "core"
	BindSocket   CPUBindingPolicy = "socket"
	BindExplicit CPUBindingPolicy = "explicit"
)

// CPUBinding pins ranks to CPUs.
// +kubebuilder:validation:XValidation:rule="self.policy == 'explicit' || !has(self.cpus)",message="cpus are only used with policy explicit"
type CPUBinding struct {
	// policy is none, core, socket or explicit.
	// +required
	Policy CPUBindingPolicy `json:"policy"`

	// cpus lists, for policy explicit, the CPU of each rank on a node: rank i on
	// a node runs on cpus[i] (seed 002 pins each end to a chiplet's first CPU).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=512
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=4095
	CPUs []int32 `json:"cpus,omitempty"`
}

// MPIImplementation is the MPI the image carries; it sets the MPIJob's
// mpiImplementation and the mpirun conventions.
// +kubebuilder:validation:Enum=OpenMPI;Intel;MPICH
type MPIImplementation string

// MPI implementations.
const (
	OpenMPI  MPIImplementation = "OpenMPI"
	IntelMPI MPIImplementation = "Intel"
	MPICH    MPIImplementation = "MPICH"
)

// MPISettings selects the MPI and how mpirun is called.
type MPISettings struct {
	// implementation is OpenMPI, Intel or MPICH.
	// +optional
	// +kubebuilder:default=OpenMPI
	Implementation MPIImplementation `json:"implementation,omitempty"`

	// image holds MPI and the benchmark binaries. Default: the manager's image for
	// the implementation. Any image with the binaries on its PATH works whose
	// mpiuser (uid and gid 1000, as in the MPI Operator's images) can run them
	// and sshd: launcher and workers run as 1000:1000, without capabilities.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// env is passed to every rank (mpirun -x, -genv or -envlist), e.g.
	// I_MPI_FABRICS=ofi, FI_PROVIDER=tcp.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Env []EnvVar `json:"env,omitempty"`

	// extraArgs are appended to the benchmark's own arguments, as argv (never
	// through a shell).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.all(a, !a.matches('[;&|$`<>(){}\\\\\\\\\\'\"*?!~#\\\\n]'))",message="extraArgs are passed as argv, never through a shell: remove shell characters (; & | $ ` < > ( ) { } \\ ' \" * ? ! ~ # newline) and give each argument as its own entry"
	ExtraArgs []string `json:"extraArgs,omitempty"`

	// resources of each worker container. Ask for whole nodes to keep others away.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
}

// MessageSizes bounds the message sizes in bytes.
// +kubebuilder:validation:XValidation:rule="self.min <= self.max",message="messageSizes.min must not be greater than messageSizes.max"
type MessageSizes struct {
	// min message size in bytes.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1073741824
	Min int64 `json:"min"`

	// max message size in bytes.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1073741824
	Max int64 `json:"max"`
}

// IORAPI is IOR's I/O interface (-a).
// +kubebuilder:validation:Enum=POSIX;MPIIO;HDF5
type IORAPI string

// IORSettings configures IOR.
// +kubebuilder:validation:XValidation:rule="!has(self.directIO) || !self.directIO || self.api == 'POSIX'",message="directIO (--posix.odirect) needs api POSIX"
type IORSettings struct {
	// api is POSIX, MPIIO or HDF5 (-a).
	// +optional
	// +kubebuilder:default=POSIX
	API IORAPI `json:"api,omitempty"`

	// filePerProcess writes one file per rank (-F) instead of one shared file.
	// +optional
	FilePerProcess bool `json:"filePerProcess,omitempty"`

	// transferSize is the size of each I/O call (-t), e.g. 1m.
	// +optional
	// +kubebuilder:default="1m"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+[kmgKMG]?$')",message="transferSize is a byte count with an optional k, m or g suffix, e.g. 1m"
	TransferSize string `json:"transferSize,omitempty"`

	// blockSize is the contiguous bytes each rank writes per segment (-b), a
	// multiple of transferSize, e.g. 16m.
	// +optional
	// +kubebuilder:default="16m"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+[kmgtKMGT]?$')",message="blockSize is a byte count with an optional k, m, g or t suffix, e.g. 16m"
	BlockSize string `json:"blockSize,omitempty"`

	// segments is the number of segments (-s).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	Segments int32 `json:"segments,omitempty"`

	// fsync calls fsync after the write phase (-e), so the write figure includes
	// getting the data to stable storage.
	// +optional
	Fsync bool `json:"fsync,omitempty"`

	// directIO bypasses the page cache (--posix.odirect).
	// +optional
	DirectIO *bool `json:"directIO,omitempty"`

	// claimName is a ReadWriteMany PVC mounted at /data on every worker, for a
	// shared file. Without it each worker writes to its own emptyDir.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ClaimName string `json:"claimName,omitempty"`
}

// MPIBenchmarkStatus is what was measured.
type MPIBenchmarkStatus struct {
	BenchmarkStatusCommon `json:",inline"`

	// layout is nodes x ranksPerNode and binding, for `kubectl get`, e.g. "2x1 core".
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Layout string `json:"layout,omitempty"`

	// summary holds the headline figures.
	// +optional
	Summary MPISummary `json:"summary,omitempty"`

	// results per test and metric (IMB PingPong has latency and bandwidth):
	// figure per message size over the counted repetitions.
	// +optional
	// +listType=map
	// +listMapKey=test
	// +listMapKey=metric
	// +kubebuilder:validation:MaxItems=48
	Results []MPITestResult `json:"results,omitempty"`
}

// MPISummary holds the headline figures (medians over repetitions).
type MPISummary struct {
	// latencyMicroseconds is the latency at the smallest non-zero message size
	// measured (8 bytes when it was in range), of the first latency test
	// (IOR: its per-operation latency at the transfer size, converted from s).
	// +optional
	LatencyMicroseconds *float64 `json:"latencyMicroseconds,omitempty"`
	// latencyMessageSize is the message size of latencyMicroseconds, in bytes.
	// +optional
	LatencyMessageSize *int64 `json:"latencyMessageSize,omitempty"`
	// peakBandwidthMBps is the highest median bandwidth of the first bandwidth
	// test, in MB/s (10^6 bytes/s, as OSU and IMB report; IOR's MiB/s converted).
	// +optional
	PeakBandwidthMBps *float64 `json:"peakBandwidthMBps,omitempty"`
	// peakBandwidthMessageSize is the message size of peakBandwidthMBps, in bytes.
	// +optional
	PeakBandwidthMessageSize *int64 `json:"peakBandwidthMessageSize,omitempty"`
}

// MPITestResult is one test's figures per message size.
type MPITestResult struct {
	// test is the OSU binary, IMB benchmark or IOR phase.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Test string `json:"test"`
	// metric is latency, bandwidth, bibandwidth, message_rate, or for IOR bandwidth.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Metric string `json:"metric"`
	// unit of the values, e.g. us or MB/s.
	// +required
	// +kubebuilder:validation:MaxLength=32
	Unit string `json:"unit"`
	// points are the figures per message size.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=40
	Points []MPIPoint `json:"points,omitempty"`
}

// MPIPoint is one message size's figure over repetitions.
type MPIPoint struct {
	// size is the message size in bytes (IOR: the transfer size).
	// +required
	Size int64 `json:"size"`
	// stat is the figure's median, min, max and CV over repetitions.
	Stat `json:",inline"`
}

// MPIBenchmark runs OSU, IMB or IOR through the MPI Operator.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=mpibench,categories=benchwright
// +kubebuilder:printcolumn:name="Suite",type=string,JSONPath=`.spec.suite`
// +kubebuilder:printcolumn:name="Layout",type=string,JSONPath=`.status.layout`,description="nodes x ranks per node, binding"
// +kubebuilder:printcolumn:name="MPI",type=string,JSONPath=`.spec.mpi.implementation`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`,description="finished/total repetitions"
// +kubebuilder:printcolumn:name="Latency(us)",type=number,JSONPath=`.status.summary.latencyMicroseconds`,description="median latency at the smallest message size"
// +kubebuilder:printcolumn:name="Peak(MB/s)",type=number,JSONPath=`.status.summary.peakBandwidthMBps`,description="median peak bandwidth"
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Queue",type=integer,JSONPath=`.status.queuePosition`,description="place in the pool's queue while waiting (1 = next)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.startTime) || self.spec == oldSelf.spec",message="spec is immutable once the benchmark has started: create a new benchmark to measure something else"
type MPIBenchmark struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what to measure.
	// +required
	Spec MPIBenchmarkSpec `json:"spec"`

	// status is what was measured.
	// +optional
	Status MPIBenchmarkStatus `json:"status,omitempty"`
}

// MPIBenchmarkList is a list of MPIBenchmarks.
//
// +kubebuilder:object:root=true
type MPIBenchmarkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MPIBenchmark `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &MPIBenchmark{}, &MPIBenchmarkList{})
}
