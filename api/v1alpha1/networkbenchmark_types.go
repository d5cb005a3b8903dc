package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NetworkBenchmarkSpec measures between pairs of CPUs: a server pinned to one
// CPU and a client pinned to another, on one node or on two, with libfabric's
// fabtests or iperf3. Every node runs one pod; intra-node pairs run inside it
// over loopback, inter-node pairs from node i to node i+1.
// +kubebuilder:validation:XValidation:rule="has(self.pool) != has(self.nodeSelector)",message="set exactly one of pool (a BenchmarkPool) and nodeSelector"
// +kubebuilder:validation:XValidation:rule="self.warmupRepetitions < self.repetitions",message="warmupRepetitions must be smaller than repetitions, or no repetition is left to count"
// +kubebuilder:validation:XValidation:rule="has(self.fabtests) != has(self.iperf3)",message="set exactly one of fabtests and iperf3"
// +kubebuilder:validation:XValidation:rule="!has(self.pairs.explicit) || self.pairs.explicit.all(p, p.server.node < self.nodes && p.client.node < self.nodes)",message="an explicit pair names a node index that does not exist: node indexes run from 0 to nodes-1"
// +kubebuilder:validation:XValidation:rule="!has(self.pairs.scopes) || !('interNode' in self.pairs.scopes) || self.nodes >= 2",message="the interNode scope needs nodes: 2 or more"
type NetworkBenchmarkSpec struct {
	BenchmarkSpecCommon `json:",inline"`

	// nodes is how many nodes run the pairs, one pod each. Intra-node pairs run
	// on every node; inter-node pairs from each node to the next (with 2 nodes,
	// from the first to the second).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	Nodes int32 `json:"nodes,omitempty"`

	// pairs are the server and client CPUs to measure between.
	// +required
	Pairs NetworkPairs `json:"pairs"`

	// fabtests runs libfabric's fabtests (fi_msg_bw, fi_rma_bw, ...).
	// +optional
	Fabtests *FabtestsSettings `json:"fabtests,omitempty"`

	// iperf3 runs iperf3 (TCP or UDP throughput).
	// +optional
	IPerf3 *IPerf3Settings `json:"iperf3,omitempty"`

	// hostNetwork runs the pods in the nodes' network namespace: the fabric as
	// the node sees it, without the pod network. The pods then use the ports
	// 29100 to 33300 of the node. The cluster's admin must allow it (chart
	// value allowHostNetwork); otherwise the benchmark fails InvalidSpec.
	// +optional
	HostNetwork bool `json:"hostNetwork,omitempty"`

	// image holds the benchwright binary, taskset and the tools. Default: the
	// manager's MPI image, which carries fabtests 1.17 and iperf3.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// resources of each pod's container. Leave the CPUs unlimited (no static
	// CPU manager assignment): the ends are pinned with taskset inside the
	// container's cpuset, which must hold the CPUs of the pairs.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
}

// NetworkScope is where a pair's ends are relative to each other.
// +kubebuilder:validation:Enum=intraSocket;interSocket;interNode
type NetworkScope string

// Scopes of generated pairs.
const (
	ScopeIntraSocket NetworkScope = "intraSocket"
	ScopeInterSocket NetworkScope = "interSocket"
	ScopeInterNode   NetworkScope = "interNode"
)

// PairTarget says which CPUs the generated pairs go to.
// +kubebuilder:validation:Enum=EachChiplet
type PairTarget string

// EachChiplet is the first CPU of every chiplet.
const EachChiplet PairTarget = "EachChiplet"

// NetworkPairs are given explicitly, or generated from the nodes' topology
// (seed 002: from the first CPU of chiplet 0 to the first CPU of every
// chiplet, per scope). A chiplet is the CPUs that share an L3 cache (EPYC's
// CCDs), else a NUMA node of a package (Sapphire Rapids' tiles under
// sub-NUMA clustering), else a package; pods read it from sysfs.
// +kubebuilder:validation:XValidation:rule="has(self.explicit) != has(self.scopes)",message="give pairs either as explicit (server and client node and CPU) or as from, to and scopes (generated from the topology), not both"
// +kubebuilder:validation:XValidation:rule="has(self.scopes) || (!has(self.from) && !has(self.to))",message="from and to generate pairs together with scopes: add scopes, e.g. [intraSocket, interSocket, interNode]"
type NetworkPairs struct {
	// explicit pairs: the server's and the client's node index and CPU.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=256
	Explicit []ExplicitPair `json:"explicit,omitempty"`

	// from is the server's end of generated pairs.
	// +optional
	From *ChipletRef `json:"from,omitempty"`

	// to is the clients' ends of generated pairs: EachChiplet (the default),
	// the first CPU of every chiplet in the scope.
	// +optional
	To PairTarget `json:"to,omitempty"`

	// scopes of generated pairs: intraSocket (the other chiplets of the
	// server's socket), interSocket (the chiplets of the other sockets),
	// interNode (every chiplet of the next node).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	Scopes []NetworkScope `json:"scopes,omitempty"`
}

// ChipletRef names a chiplet by number (0 is the one of CPU 0).
type ChipletRef struct {
	// chiplet number, counted machine-wide in order of first CPU.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1023
	Chiplet int32 `json:"chiplet"`
}

// ExplicitPair is one server and one client end.
// +kubebuilder:validation:XValidation:rule="self.server.node != self.client.node || self.server.cpu != self.client.cpu",message="a pair's server and client must not be the same CPU of the same node"
type ExplicitPair struct {
	// server end.
	// +required
	Server PairEnd `json:"server"`
	// client end.
	// +required
	Client PairEnd `json:"client"`
}

// PairEnd is a CPU on one of the benchmark's nodes.
type PairEnd struct {
	// node is the index of the node among the benchmark's nodes, from 0.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=63
	Node int32 `json:"node"`
	// cpu is the logical CPU number, as in /proc/cpuinfo and taskset.
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=4095
	CPU int32 `json:"cpu"`
}

// FabtestsSettings runs fabtests programs.
// +kubebuilder:validation:XValidation:rule="!has(self.rmaOperation) || self.tests.exists(t, t == 'fi_rma_bw')",message="rmaOperation applies to fi_rma_bw: add it to tests or remove rmaOperation"
// +kubebuilder:validation:XValidation:rule="self.provider != 'tcp' || !self.tests.exists(t, t.startsWith('fi_rdm') || t == 'fi_rma_bw')",message="with fabtests 1.17 the tcp provider runs msg endpoints only (tcp;ofi_rxm hangs): use provider sockets for fi_rdm_* and fi_rma_bw"
type FabtestsSettings struct {
	// tests are fabtests programs, each run per pair in order.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Enum=fi_msg_bw;fi_msg_pingpong;fi_rma_bw;fi_rdm_tagged_bw;fi_rdm_pingpong;fi_rdm_tagged_pingpong
	Tests []string `json:"tests"`

	// provider is libfabric's provider (-p): tcp, sockets, verbs, efa, cxi,
	// or a layered one such as verbs;ofi_rxm.
	// +optional
	// +kubebuilder:default=tcp
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9_]+(;[a-z0-9_]+)?$')",message="provider is a libfabric provider name such as tcp, sockets, verbs or efa, optionally layered as verbs;ofi_rxm"
	Provider string `json:"provider,omitempty"`

	// domain selects the provider's domain (-d), e.g. a NIC such as mlx5_0.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9_.:-]+$')",message="domain is a device name such as mlx5_0 or rdmap0s6"
	Domain string `json:"domain,omitempty"`

	// messageSize is one message size in bytes (-S N). Unset, every size
	// fabtests knows runs (-S all: 1 byte to 8 MiB).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1073741824
	MessageSize *int64 `json:"messageSize,omitempty"`

	// iterations per message size (-I). Unset, fabtests' default (1000).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	Iterations *int32 `json:"iterations,omitempty"`

	// warmupIterations per message size before timing (-w); seed 002 uses 1024.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	WarmupIterations *int32 `json:"warmupIterations,omitempty"`

	// rmaOperation is fi_rma_bw's operation (-o): read, write (the default) or
	// writedata.
	// +optional
	// +kubebuilder:validation:Enum=read;write;writedata
	RMAOperation string `json:"rmaOperation,omitempty"`
}

// IPerf3Protocol is TCP or UDP.
// +kubebuilder:validation:Enum=TCP;UDP
type IPerf3Protocol string

// IPerf3Settings runs iperf3 between the pairs' ends.
// +kubebuilder:validation:XValidation:rule="!has(self.bitrate) || self.protocol == 'UDP'",message="bitrate applies to UDP (-u -b); TCP sends as fast as it can"
type IPerf3Settings struct {
	// protocol is TCP (default) or UDP.
	// +optional
	// +kubebuilder:default=TCP
	Protocol IPerf3Protocol `json:"protocol,omitempty"`
	// streams in parallel (-P).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=128
	Streams int32 `json:"streams,omitempty"`
	// seconds each run lasts (-t).
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	Seconds int32 `json:"seconds,omitempty"`
	// omitSeconds are left out at the start, TCP's slow start (-O).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=600
	OmitSeconds int32 `json:"omitSeconds,omitempty"`
	// reverse has the server send and the client receive (-R).
	// +optional
	Reverse bool `json:"reverse,omitempty"`
	// bitrate caps UDP (-b), e.g. 10G.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+([.][0-9]+)?[KMG]?$')",message="bitrate is a rate in bits/s with an optional K, M or G suffix, e.g. 10G"
	Bitrate string `json:"bitrate,omitempty"`
	// blockSize is the buffer size of each write (-l), e.g. 128K.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+[KM]?$')",message="blockSize is a byte count with an optional K or M suffix, e.g. 128K"
	BlockSize string `json:"blockSize,omitempty"`
}

// NetworkBenchmarkStatus is what was measured, per pair.
type NetworkBenchmarkStatus struct {
	BenchmarkStatusCommon `json:",inline"`

	// tool is fabtests (with its provider) or iperf3, for `kubectl get`.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Tool string `json:"tool,omitempty"`

	// pairCount says how many pairs ran on how many nodes, for `kubectl get`.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	PairCount string `json:"pairCount,omitempty"`

	// topology of each node as its pod read it from sysfs: what the chiplets
	// are and which CPUs they hold. The full topology is in nodes.json.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Topology []NodeTopology `json:"topology,omitempty"`

	// summary holds the headline figures over all pairs.
	// +optional
	Summary NetworkSummary `json:"summary,omitempty"`

	// pairs are the figures of each pair and test.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=512
	Pairs []NetworkPairResult `json:"pairs,omitempty"`
}

// NodeTopology is one node's CPU topology in brief.
type NodeTopology struct {
	// node name.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node"`
	// cpus online.
	// +required
	CPUs int32 `json:"cpus"`
	// packages (sockets).
	// +required
	Packages int32 `json:"packages"`
	// chiplets found.
	// +required
	Chiplets int32 `json:"chiplets"`
	// chipletsFrom says how chiplets were found: l3, numa or package.
	// +required
	// +kubebuilder:validation:MaxLength=16
	ChipletsFrom string `json:"chipletsFrom"`
	// smt is true when a core has more than one thread.
	// +optional
	SMT bool `json:"smt,omitempty"`
	// allowedCPUs is the pod's cpuset, in the kernel's list notation.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	AllowedCPUs string `json:"allowedCPUs,omitempty"`
}

// NetworkSummary holds the headline figures: medians over repetitions.
type NetworkSummary struct {
	// peakBandwidthMBps is the highest median bandwidth of any pair in the
	// first bandwidth test (not a ping-pong), in MB/s (iperf3's Gbit/s
	// converted).
	// +optional
	PeakBandwidthMBps *float64 `json:"peakBandwidthMBps,omitempty"`
	// lowestBandwidthPair is the pair whose peak bandwidth is lowest in that
	// test: where a chiplet matrix shows its slow path.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	LowestBandwidthPair string `json:"lowestBandwidthPair,omitempty"`
	// latencyMicroseconds is the lowest median small-message latency of any
	// pair (ping-pong tests).
	// +optional
	LatencyMicroseconds *float64 `json:"latencyMicroseconds,omitempty"`
}

// NetworkPairResult is one pair's figures for one test.
type NetworkPairResult struct {
	// pair names the ends: "n0:c0 -> n1:c8".
	// +required
	// +kubebuilder:validation:MaxLength=128
	Pair string `json:"pair"`
	// scope is intraChiplet (explicit pairs only), intraSocket, interSocket or interNode.
	// +required
	// +kubebuilder:validation:MaxLength=32
	Scope string `json:"scope"`
	// test is the fabtests program or iperf3.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Test string `json:"test"`
	// peakBandwidthMBps is the highest median bandwidth over message sizes.
	// +optional
	PeakBandwidth *Stat `json:"peakBandwidthMBps,omitempty"`
	// peakMessageSize is the message size of the peak, in bytes.
	// +optional
	PeakMessageSize *int64 `json:"peakMessageSize,omitempty"`
	// latencyMicroseconds is the median latency at the smallest message size
	// (ping-pong tests).
	// +optional
	Latency *Stat `json:"latencyMicroseconds,omitempty"`
}

// NetworkBenchmark measures bandwidth and latency between chosen CPUs, on one
// node and across nodes, with fabtests or iperf3.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=netbench,categories=benchwright
// +kubebuilder:printcolumn:name="Tool",type=string,JSONPath=`.status.tool`,description="fabtests provider or iperf3"
// +kubebuilder:printcolumn:name="Pairs",type=string,JSONPath=`.status.pairCount`,description="pairs and nodes"
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`,description="finished/total repetitions"
// +kubebuilder:printcolumn:name="Peak(MB/s)",type=number,JSONPath=`.status.summary.peakBandwidthMBps`,description="highest median bandwidth of any pair in the first bandwidth test"
// +kubebuilder:printcolumn:name="Slowest",type=string,JSONPath=`.status.summary.lowestBandwidthPair`,description="the pair with the lowest peak bandwidth"
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Queue",type=integer,JSONPath=`.status.queuePosition`,description="place in the pool's queue while waiting (1 = next)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.startTime) || self.spec == oldSelf.spec",message="spec is immutable once the benchmark has started: create a new benchmark to measure something else"
type NetworkBenchmark struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what to measure.
	// +required
	Spec NetworkBenchmarkSpec `json:"spec"`

	// status is what was measured.
	// +optional
	Status NetworkBenchmarkStatus `json:"status,omitempty"`
}

// NetworkBenchmarkList is a list of NetworkBenchmarks.
// +kubebuilder:object:root=true
type NetworkBenchmarkList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NetworkBenchmark `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &NetworkBenchmark{}, &NetworkBenchmarkList{})
}
