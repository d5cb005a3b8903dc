package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StorageBenchmarkSpec is what to measure with fio or dd, on which volumes and nodes.
// +kubebuilder:validation:XValidation:rule="has(self.pool) != has(self.nodeSelector)",message="set exactly one of pool (a BenchmarkPool) and nodeSelector"
// +kubebuilder:validation:XValidation:rule="has(self.fio) != has(self.dd)",message="set exactly one of fio and dd"
// +kubebuilder:validation:XValidation:rule="self.warmupRepetitions < self.repetitions",message="warmupRepetitions must be smaller than repetitions, or no repetition is left to count"
// +kubebuilder:validation:XValidation:rule="!has(self.dropCaches) || !self.dropCaches || !has(self.fio) || !has(self.fio.jobs) || self.fio.jobs.exists(j, has(j.direct) && !j.direct)",message="dropCaches only matters for buffered I/O: at least one job must have direct: false (jobs are direct unless they say so)"
// +kubebuilder:validation:XValidation:rule="!has(self.dd) || !has(self.volumes.volumeMode) || self.volumes.volumeMode != 'Block'",message="dd writes a file: use volumeMode Filesystem (fio can use a raw Block device)"
type StorageBenchmarkSpec struct {
	BenchmarkSpecCommon `json:",inline"`

	// volumes are the disks under test, mounted at /data/0, /data/1, ... in each pod
	// (or attached as /dev/bw0, /dev/bw1, ... in Block mode).
	// +required
	Volumes StorageVolumes `json:"volumes"`

	// fio runs the fio jobs of a preset and/or explicit jobs.
	// +optional
	Fio *FioSpec `json:"fio,omitempty"`

	// dd runs GNU dd tests (write then read of a file).
	// +optional
	DD *DDSpec `json:"dd,omitempty"`

	// nodes is how many nodes run the benchmark at once (distributed fio); results
	// are given per node and aggregated.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=128
	Nodes int32 `json:"nodes,omitempty"`

	// dropCaches drops the page cache on the node before each repetition, for
	// buffered-I/O studies. It is the only privileged part of a storage benchmark.
	// +optional
	DropCaches bool `json:"dropCaches,omitempty"`

	// image runs fio and dd. Default: the manager's fio image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`
}

// StorageVolumes are the volumes under test: persistent disks (one PVC each), an
// emptyDir, or host paths (local SSD).
// +kubebuilder:validation:XValidation:rule="[has(self.size), has(self.emptyDir), has(self.hostPath)].filter(x, x).size() == 1",message="set exactly one of size (persistent disks), emptyDir and hostPath"
// +kubebuilder:validation:XValidation:rule="has(self.size) || (!has(self.storageClassName) && !has(self.volumeMode) && !has(self.accessMode))",message="storageClassName, volumeMode and accessMode apply to persistent disks: set size too"
// +kubebuilder:validation:XValidation:rule="!has(self.hostPath) || self.count == 1",message="with hostPath, list one path per volume in hostPath.paths and leave count at 1"
// +kubebuilder:validation:XValidation:rule="!has(self.emptyDir) || self.count == 1",message="emptyDir gives one volume: leave count at 1"
type StorageVolumes struct {
	// count is how many persistent disks each node gets (seed 000: 1 PD vs 10 PDs).
	// fio spreads its files over all of them.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	Count int32 `json:"count,omitempty"`

	// size of each persistent disk, e.g. 500Gi. Setting it selects persistent disks.
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`

	// storageClassName of the persistent disks, e.g. premium-rwo (PD SSD on GKE).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	StorageClassName *string `json:"storageClassName,omitempty"`

	// volumeMode Block hands fio the raw device; Filesystem a mounted file system.
	// +optional
	VolumeMode *corev1.PersistentVolumeMode `json:"volumeMode,omitempty"`

	// accessMode of the persistent disks. Default ReadWriteOnce.
	// +optional
	// +kubebuilder:validation:Enum=ReadWriteOnce;ReadWriteOncePod;ReadWriteMany
	AccessMode corev1.PersistentVolumeAccessMode `json:"accessMode,omitempty"`

	// emptyDir uses the node's ephemeral storage (local SSD on GKE nodes that have
	// ephemeral-storage-local-ssd).
	// +optional
	EmptyDir *EmptyDirVolume `json:"emptyDir,omitempty"`

	// hostPath uses directories or devices on the node.
	// +optional
	HostPath *HostPathVolumes `json:"hostPath,omitempty"`
}

// EmptyDirVolume is a pod-local scratch volume.
type EmptyDirVolume struct {
	// medium is "" (node disk) or Memory (tmpfs, for a page-cache ceiling).
	// +optional
	// +kubebuilder:validation:Enum="";Memory
	Medium corev1.StorageMedium `json:"medium,omitempty"`

	// sizeLimit of the volume.
	// +optional
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
}

// HostPathVolumes are directories on the node, one volume each.
type HostPathVolumes struct {
	// paths are absolute directories on the node, e.g. /mnt/disks/ssd0. The
	// manager accepts only paths under the directories its admin allows (the
	// chart's storage.hostPathPrefixes), and none when it allows none.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=24
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.all(p, p.matches('^/[A-Za-z0-9._/-]+$') && !p.contains('..'))",message="hostPath paths must be absolute, without '..', made of letters, digits, '.', '_', '-' and '/'"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !p.contains('//') && !p.contains('/./') && !p.endsWith('/.') && !p.endsWith('/'))",message="hostPath paths must be written plainly: no '//', no '.' component and no trailing '/', e.g. /mnt/disks/ssd0"
	// +kubebuilder:validation:XValidation:rule="self.all(p, !(p in ['/', '/root', '/home']) && !['/etc', '/proc', '/sys', '/dev', '/var', '/usr', '/boot', '/bin', '/sbin', '/lib', '/lib64', '/run', '/opt', '/root/.ssh'].exists(d, p == d || p.startsWith(d + '/')))",message="hostPath must not be a system directory or lie under one (/, /etc, /proc, /sys, /dev, /var, /usr, /boot, /run, /root/.ssh, ...): use a data mount such as /mnt/disks/ssd0"
	Paths []string `json:"paths"`
}

// FioPreset names a suite of fio jobs.
// +kubebuilder:validation:Enum=gce-pd;io-modes
type FioPreset string

// fio presets.
const (
	// FioPresetGCEPD is the 8 workloads of seed 000, all O_DIRECT.
	FioPresetGCEPD FioPreset = "gce-pd"
	// FioPresetIOModes is buffered, sync and direct write and read (seed 004).
	FioPresetIOModes FioPreset = "io-modes"
)

// FioSpec selects fio jobs: a preset, explicit jobs, or both.
// +kubebuilder:validation:XValidation:rule="has(self.preset) || has(self.jobs)",message="fio needs a preset or at least one job"
type FioSpec struct {
	// preset adds a named suite of jobs.
	// +optional
	Preset FioPreset `json:"preset,omitempty"`

	// jobs are explicit fio jobs, run one after the other.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Jobs []FioJob `json:"jobs,omitempty"`

	// size of each job's file per volume when a job does not say, e.g. 10G.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+[kKmMgGtT]?$')",message="size is a byte count with an optional k, M, G or T suffix, e.g. 10G"
	Size string `json:"size,omitempty"`

	// runtime of each job when a job does not say. Default 60s for presets.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="a duration is a number with a unit, such as 90s, 15m or 1h30m (units ns, us, ms, s, m, h)"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Runtime *metav1.Duration `json:"runtime,omitempty"`

	// rampTime of each job when a job does not say: I/O before measuring starts.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="a duration is a number with a unit, such as 90s, 15m or 1h30m (units ns, us, ms, s, m, h)"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	RampTime *metav1.Duration `json:"rampTime,omitempty"`
}

// FioRW is fio's rw= access pattern.
// +kubebuilder:validation:Enum=read;write;randread;randwrite;rw;readwrite;randrw;trim;randtrim
type FioRW string

// FioIOEngine is fio's ioengine=.
// +kubebuilder:validation:Enum=libaio;io_uring;psync;sync;pvsync;pvsync2;posixaio;mmap
type FioIOEngine string

// FioJob is one fio job section.
// +kubebuilder:validation:XValidation:rule="!has(self.rwMixRead) || self.rw in ['rw', 'readwrite', 'randrw']",message="rwMixRead applies only to mixed workloads: rw, readwrite or randrw"
// +kubebuilder:validation:XValidation:rule="!has(self.ioDepth) || self.ioDepth == 1 || !has(self.ioEngine) || self.ioEngine in ['libaio', 'io_uring', 'posixaio']",message="ioDepth above 1 needs an asynchronous ioEngine (libaio, io_uring or posixaio); synchronous engines keep one I/O in flight"
// +kubebuilder:validation:XValidation:rule="!((!has(self.direct) || self.direct) && has(self.ioEngine) && self.ioEngine == 'mmap')",message="direct I/O (the default) cannot be combined with the mmap ioEngine: set direct: false"
type FioJob struct {
	// name of the job, used as the test name in results.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="job names are lower-case letters, digits and '-', e.g. randread-4k-qd256"
	Name string `json:"name"`

	// rw is the access pattern.
	// +required
	RW FioRW `json:"rw"`

	// blockSize of each I/O, e.g. 4k or 1M.
	// +optional
	// +kubebuilder:default="4k"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+[kKmM]?$')",message="blockSize is a byte count with an optional k or M suffix, e.g. 4k or 1M"
	BlockSize string `json:"blockSize,omitempty"`

	// ioDepth is the number of I/Os in flight per job (queue depth).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	IODepth *int32 `json:"ioDepth,omitempty"`

	// numJobs is the number of fio processes for this job.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=256
	NumJobs *int32 `json:"numJobs,omitempty"`

	// direct opens files with O_DIRECT (bypasses the page cache). Default true.
	// +optional
	Direct *bool `json:"direct,omitempty"`

	// ioEngine is how fio issues I/O. Default libaio.
	// +optional
	IOEngine FioIOEngine `json:"ioEngine,omitempty"`

	// rwMixRead is the read percentage of a mixed workload.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	RWMixRead *int32 `json:"rwMixRead,omitempty"`

	// rateIOPS caps the job at this many IOPS per process (fio's rate_iops;
	// reads and writes each): latency at a fixed load, as a service sees it,
	// or a known ceiling. Unset: as fast as it goes.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000000
	RateIOPS *int32 `json:"rateIOPS,omitempty"`

	// size of the file per volume, e.g. 10G. Default: fio.size, else 1G.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+[kKmMgGtT]?$')",message="size is a byte count with an optional k, M, G or T suffix, e.g. 10G"
	Size string `json:"size,omitempty"`

	// runtime of the job (time_based). Default: fio.runtime.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="a duration is a number with a unit, such as 90s, 15m or 1h30m (units ns, us, ms, s, m, h)"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Runtime *metav1.Duration `json:"runtime,omitempty"`

	// rampTime before measuring starts. Default: fio.rampTime.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="a duration is a number with a unit, such as 90s, 15m or 1h30m (units ns, us, ms, s, m, h)"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	RampTime *metav1.Duration `json:"rampTime,omitempty"`

	// sync opens files with O_SYNC (seed 004's sync mode).
	// +optional
	Sync bool `json:"sync,omitempty"`

	// fsync issues an fsync after this many writes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	Fsync int32 `json:"fsync,omitempty"`
}

// DDSpec is a list of dd tests, run one after the other.
type DDSpec struct {
	// tests to run, in order (up to 32: e.g. 5 I/O modes by 1, 2, 4 and 8 processes).
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(t, !(t.name in ['drop-caches', 'dd-prepare', 'node-facts', 'sampler']))",message="drop-caches, dd-prepare, node-facts and sampler are the names of benchwright's own steps: give the test another name"
	Tests []DDTest `json:"tests"`
}

// DDOperation is whether dd writes the test file or reads it back.
// +kubebuilder:validation:Enum=write;read
type DDOperation string

// dd operations.
const (
	DDWrite DDOperation = "write"
	DDRead  DDOperation = "read"
)

// DDTest is one dd run: write the test file(s) in /data/0 from /dev/zero, or
// read them to /dev/null, with one or several dd processes at once.
// +kubebuilder:validation:XValidation:rule="!has(self.oflag) || self.operation == 'write'",message="oflag applies to write tests; use iflag for reads"
// +kubebuilder:validation:XValidation:rule="!has(self.iflag) || self.operation == 'read'",message="iflag applies to read tests; use oflag for writes"
type DDTest struct {
	// name of the test, used as the test name in results.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="test names are lower-case letters, digits and '-', e.g. write-dsync"
	Name string `json:"name"`

	// operation is write or read.
	// +required
	Operation DDOperation `json:"operation"`

	// blockSize is dd's bs=, e.g. 1M.
	// +optional
	// +kubebuilder:default="1M"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]+[kKMG]?$')",message="blockSize is a byte count with an optional k, M or G suffix, e.g. 1M"
	BlockSize string `json:"blockSize,omitempty"`

	// count is dd's count=: blocks to copy.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000000
	Count int64 `json:"count"`

	// oflag is dd's oflag= for writes: dsync, sync or direct. Unset = buffered.
	// +optional
	// +kubebuilder:validation:Enum=dsync;sync;direct
	OFlag string `json:"oflag,omitempty"`

	// iflag is dd's iflag= for reads: direct. Unset = buffered.
	// +optional
	// +kubebuilder:validation:Enum=direct
	IFlag string `json:"iflag,omitempty"`

	// processes is how many dd processes run this test at once, each on its own
	// file (file per process: benchwright-dd.dat, benchwright-dd.dat.1, ...).
	// The result is the aggregate bandwidth, all bytes over the time of the
	// slowest process; each process's figures are kept as samples too. More
	// than one process needs /bin/sh in the image (a fixed POSIX sh script
	// starts them together).
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XValidation:rule="self >= 1 && self <= 256",message="processes is how many dd processes run at once: 1 to 256"
	Processes int32 `json:"processes,omitempty"`
}

// StorageBenchmarkStatus is what was measured.
type StorageBenchmarkStatus struct {
	BenchmarkStatusCommon `json:",inline"`

	// volumes describes the volumes under test for `kubectl get`, e.g. "10x500Gi premium-rwo".
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Volumes string `json:"volumes,omitempty"`

	// headline is the figure shown by `kubectl get`, e.g. "412k IOPS".
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Headline string `json:"headline,omitempty"`

	// results per test (fio job or dd test) over the counted repetitions.
	// +optional
	// +listType=map
	// +listMapKey=test
	// +kubebuilder:validation:MaxItems=96
	Results []StorageTestResult `json:"results,omitempty"`
}

// StorageTestResult is one test's figures, aggregated over nodes and summarised
// over repetitions.
type StorageTestResult struct {
	// test is the fio job or dd test name.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Test string `json:"test"`
	// read figures, when the test reads.
	// +optional
	Read *DirectionResult `json:"read,omitempty"`
	// write figures, when the test writes.
	// +optional
	Write *DirectionResult `json:"write,omitempty"`
}

// DirectionResult holds the figures of one I/O direction.
type DirectionResult struct {
	// iops is I/O operations per second (summed over jobs and nodes).
	// +optional
	IOPS *Stat `json:"iops,omitempty"`
	// bandwidthMiBps is bandwidth in MiB/s (summed over jobs and nodes).
	// +optional
	BandwidthMiBps *Stat `json:"bandwidthMiBps,omitempty"`
	// latencyMeanMicroseconds is the mean completion latency.
	// +optional
	LatencyMeanMicroseconds *Stat `json:"latencyMeanMicroseconds,omitempty"`
	// latencyP50Microseconds is the median completion latency.
	// +optional
	LatencyP50Microseconds *Stat `json:"latencyP50Microseconds,omitempty"`
	// latencyP99Microseconds is the 99th percentile completion latency.
	// +optional
	LatencyP99Microseconds *Stat `json:"latencyP99Microseconds,omitempty"`
	// latencyP999Microseconds is the 99.9th percentile completion latency.
	// +optional
	LatencyP999Microseconds *Stat `json:"latencyP999Microseconds,omitempty"`
}

// StorageBenchmark measures storage with fio or dd on the nodes of a pool.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=storagebench;sbench,categories=benchwright
// +kubebuilder:printcolumn:name="Volumes",type=string,JSONPath=`.status.volumes`,description="volumes under test"
// +kubebuilder:printcolumn:name="Nodes",type=integer,JSONPath=`.spec.nodes`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`,description="finished/total repetitions"
// +kubebuilder:printcolumn:name="Result",type=string,JSONPath=`.status.headline`,description="headline figure (median)"
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Queue",type=integer,JSONPath=`.status.queuePosition`,description="place in the pool's queue while waiting (1 = next)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.startTime) || self.spec == oldSelf.spec",message="spec is immutable once the benchmark has started: create a new benchmark to measure something else"
type StorageBenchmark struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what to measure.
	// +required
	Spec StorageBenchmarkSpec `json:"spec"`

	// status is what was measured.
	// +optional
	Status StorageBenchmarkStatus `json:"status,omitempty"`
}

// StorageBenchmarkList is a list of StorageBenchmarks.
//
// +kubebuilder:object:root=true
type StorageBenchmarkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StorageBenchmark `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &StorageBenchmark{}, &StorageBenchmarkList{})
}
