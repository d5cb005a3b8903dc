// Package specs holds the table of invalid benchmark specs and the valid
// bases they start from, shared by the integration test (the API server must
// refuse each) and internal/validation's test (the offline validator must
// refuse each with the same message).
package specs

// Valid specs the invalid cases start from; each case replaces the spec.
const (
	StorageSpec = `
nodeSelector: {kubernetes.io/os: linux}
volumes: {emptyDir: {}}
fio: {jobs: [{name: randread, rw: randread}]}
`
	MPISpec = `
nodeSelector: {kubernetes.io/os: linux}
suite: osu
tests: [osu_latency]
layout: {nodes: 2, ranksPerNode: 1}
mpi: {implementation: OpenMPI}
`
	PoolSpec = `
provider: gke
gke: {machineType: c3-highcpu-8, nodeCount: 2}
`
	NetworkSpec = `
nodeSelector: {kubernetes.io/os: linux}
nodes: 2
pairs: {from: {chiplet: 0}, scopes: [intraSocket, interNode]}
fabtests: {tests: [fi_msg_bw], warmupIterations: 1024}
`
	TuningSpec = `
pool: p
sysctls: [{name: net.core.busy_poll, value: "50"}]
`
)

// InvalidCase is a spec the API server must refuse.
type InvalidCase struct {
	Name string
	Kind string
	Spec string // the whole spec, in YAML
	Want string // a part of the API server's message that tells what to fix
}

// Invalid are the invalid cases: the CRDs' schemas and CEL rules refuse each.
var Invalid = []InvalidCase{
	// Placement.
	{"storage: both pool and nodeSelector", "StorageBenchmark", `
pool: p
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: gce-pd}`, "set exactly one of pool (a BenchmarkPool) and nodeSelector"},
	{"storage: neither pool nor nodeSelector", "StorageBenchmark", `
volumes: {emptyDir: {}}
fio: {preset: gce-pd}`, "set exactly one of pool (a BenchmarkPool) and nodeSelector"},
	{"storage: a nodeSelector on another team's pool", "StorageBenchmark", `
nodeSelector: {benchwright.io/pool: theirs}
tolerations: [{key: dedicated, operator: Exists}]
volumes: {emptyDir: {}}
fio: {preset: gce-pd}`, "nodeSelector must not select on benchwright.io/pool: set pool to run on a BenchmarkPool's nodes, in its turn"},
	{"storage: a toleration of the pool taint", "StorageBenchmark", `
nodeSelector: {kubernetes.io/hostname: node-7}
tolerations: [{key: benchwright.io/pool, operator: Equal, value: theirs, effect: NoSchedule}]
volumes: {emptyDir: {}}
fio: {preset: gce-pd}`, "tolerations must not tolerate the taints benchwright.io/pool (set pool to run on a BenchmarkPool's nodes, in its turn) or node-role.kubernetes.io/* (benchmarks never run on control-plane nodes)"},
	{"storage: a toleration of every taint", "StorageBenchmark", `
nodeSelector: {kubernetes.io/hostname: node-7}
tolerations: [{operator: Exists}]
volumes: {emptyDir: {}}
fio: {preset: gce-pd}`, "a toleration needs a key: one without tolerates every taint, a BenchmarkPool's and the control plane's included"},
	{"storage: a pool and a toleration of another pool's taint", "StorageBenchmark", `
pool: mine
tolerations: [{key: benchwright.io/pool, operator: Exists}]
volumes: {emptyDir: {}}
fio: {preset: gce-pd}`, "tolerations must not tolerate the taints benchwright.io/pool"},
	{"mpi: a nodeSelector on the control plane", "MPIBenchmark", `
nodeSelector: {node-role.kubernetes.io/control-plane: ""}
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {}`, "nodeSelector must not select on node-role.kubernetes.io/*: benchmarks never run on control-plane nodes"},
	{"mpi: a toleration of the control plane's taint", "MPIBenchmark", `
nodeSelector: {kubernetes.io/hostname: cp-1}
tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {}`, "tolerations must not tolerate the taints benchwright.io/pool"},
	{"mpi: a nodeSelector on another team's pool", "MPIBenchmark", `
nodeSelector: {benchwright.io/pool: theirs}
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {}`, "nodeSelector must not select on benchwright.io/pool"},
	{"net: a nodeSelector on another team's pool", "NetworkBenchmark", `
nodeSelector: {benchwright.io/pool: theirs}
nodes: 2
pairs: {scopes: [intraSocket]}
fabtests: {tests: [fi_msg_bw]}`, "nodeSelector must not select on benchwright.io/pool"},
	{"net: a nodeSelector on master nodes", "NetworkBenchmark", `
nodeSelector: {node-role.kubernetes.io/master: ""}
nodes: 2
pairs: {scopes: [intraSocket]}
fabtests: {tests: [fi_msg_bw]}`, "nodeSelector must not select on node-role.kubernetes.io/*"},
	{"net: a toleration of the pool taint", "NetworkBenchmark", `
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: benchwright.io/pool, operator: Exists}]
nodes: 2
pairs: {scopes: [intraSocket]}
fabtests: {tests: [fi_msg_bw]}`, "tolerations must not tolerate the taints benchwright.io/pool"},
	{"mpi: neither pool nor nodeSelector", "MPIBenchmark", `
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {}`, "set exactly one of pool (a BenchmarkPool) and nodeSelector"},
	{"pool name with capitals", "StorageBenchmark", `
pool: MyPool
volumes: {emptyDir: {}}
fio: {preset: gce-pd}`, "must be a BenchmarkPool name"},

	// StorageBenchmark.
	{"storage: fio and dd together", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: gce-pd}
dd: {tests: [{name: w, operation: write, count: 10}]}`, "set exactly one of fio and dd"},
	{"storage: no volume kind", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {count: 2}
fio: {preset: gce-pd}`, "set exactly one of size (persistent disks), emptyDir and hostPath"},
	{"storage: size and emptyDir", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {size: 10Gi, emptyDir: {}}
fio: {preset: gce-pd}`, "set exactly one of size (persistent disks), emptyDir and hostPath"},
	{"storage: storageClassName without size", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}, storageClassName: premium-rwo}
fio: {preset: gce-pd}`, "storageClassName, volumeMode and accessMode apply to persistent disks: set size too"},
	{"storage: emptyDir with count", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}, count: 4}
fio: {preset: gce-pd}`, "emptyDir gives one volume: leave count at 1"},
	{"storage: hostPath outside data mounts", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {hostPath: {paths: [/etc]}}
fio: {preset: gce-pd}`, "hostPath must not be a system directory or lie under one"},
	{"storage: hostPath /etc/ with a slash", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {hostPath: {paths: [/etc/]}}
fio: {preset: gce-pd}`, "hostPath paths must be written plainly"},
	{"storage: hostPath /./etc", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {hostPath: {paths: [/./etc]}}
fio: {preset: gce-pd}`, "hostPath paths must be written plainly"},
	{"storage: hostPath under /var", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {hostPath: {paths: [/var/lib/kubelet]}}
fio: {preset: gce-pd}`, "hostPath must not be a system directory or lie under one"},
	{"storage: hostPath of root's ssh keys", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {hostPath: {paths: [/root/.ssh]}}
fio: {preset: gce-pd}`, "hostPath must not be a system directory or lie under one"},
	{"storage: hostPath with ..", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {hostPath: {paths: [/mnt/../etc]}}
fio: {preset: gce-pd}`, "hostPath paths must be absolute, without '..'"},
	{"storage: too many PDs", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {size: 1Ti, count: 100}
fio: {preset: gce-pd}`, "should be less than or equal to 64"},
	{"fio: neither preset nor jobs", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {size: 1G}`, "fio needs a preset or at least one job"},
	{"fio: unknown preset", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: fastest}`, `supported values: "gce-pd", "io-modes"`},
	{"fio: rwMixRead on a pure read job", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {jobs: [{name: r, rw: randread, rwMixRead: 75}]}`, "rwMixRead applies only to mixed workloads"},
	{"fio: queue depth with a synchronous engine", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {jobs: [{name: r, rw: randread, ioEngine: psync, ioDepth: 32}]}`, "ioDepth above 1 needs an asynchronous ioEngine"},
	{"fio: block size with a unit fio does not take", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {jobs: [{name: r, rw: randread, blockSize: 4KB}]}`, "blockSize is a byte count with an optional k or M suffix"},
	{"fio: job name with spaces", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {jobs: [{name: "rand read", rw: randread}]}`, "job names are lower-case letters, digits and '-'"},
	{"fio: unknown rw", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {jobs: [{name: r, rw: random}]}`, `supported values: "read", "write", "randread"`},
	{"dd: oflag on a read", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dd: {tests: [{name: r, operation: read, count: 10, oflag: direct}]}`, "oflag applies to write tests; use iflag for reads"},
	{"dd: iflag on a write", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dd: {tests: [{name: w, operation: write, count: 10, iflag: direct}]}`, "iflag applies to read tests; use oflag for writes"},
	{"ior on several nodes without a shared volume", "MPIBenchmark", `
nodeSelector: {a: b}
suite: ior
tests: [write, read]
layout: {nodes: 4, ranksPerNode: 8}
mpi: {implementation: OpenMPI}
ior: {filePerProcess: true}`, "IOR on several nodes needs ior.claimName"},
	{"imb with warm-up iterations", "MPIBenchmark", `
nodeSelector: {a: b}
suite: imb
tests: [PingPong]
layout: {nodes: 2}
mpi: {implementation: Intel}
warmupIterations: 10`, "warmupIterations (-x) apply to osu only"},
	{"dd: no processes", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dd: {tests: [{name: w, operation: write, count: 10, processes: 0}]}`, "processes is how many dd processes run at once: 1 to 256"},
	{"dd: too many processes", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dd: {tests: [{name: w, operation: write, count: 10, processes: 257}]}`, "processes is how many dd processes run at once: 1 to 256"},
	{"dd: processes as a string", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dd: {tests: [{name: w, operation: write, count: 10, processes: "4"}]}`, "spec.dd.tests[0].processes: Invalid value: \"string\""},
	{"dd on a raw block device", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {size: 10Gi, volumeMode: Block}
dd: {tests: [{name: w, operation: write, count: 10}]}`, "dd writes a file: use volumeMode Filesystem"},
	{"dd test named like a benchwright step", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dd: {tests: [{name: drop-caches, operation: write, count: 10}]}`, "drop-caches, dd-prepare, node-facts and sampler are the names of benchwright's own steps"},
	{"dd test named like the node-facts step", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dd: {tests: [{name: node-facts, operation: write, count: 10}]}`, "drop-caches, dd-prepare, node-facts and sampler are the names of benchwright's own steps"},
	{"dd test named like the sampler", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dd: {tests: [{name: sampler, operation: write, count: 10}]}`, "drop-caches, dd-prepare, node-facts and sampler are the names of benchwright's own steps"},
	{"storage: all repetitions are warm-up", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: gce-pd}
repetitions: 2
warmupRepetitions: 2`, "warmupRepetitions must be smaller than repetitions"},
	{"storage: dropCaches with jobs direct by default", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dropCaches: true
fio: {jobs: [{name: r, rw: read}]}`, "dropCaches only matters for buffered I/O"},
	{"storage: mmap with direct by default", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {jobs: [{name: r, rw: read, ioEngine: mmap}]}`, "direct I/O (the default) cannot be combined with the mmap ioEngine"},
	{"storage: dropCaches with direct I/O only", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
dropCaches: true
fio: {jobs: [{name: r, rw: read, direct: true}]}`, "dropCaches only matters for buffered I/O"},

	// Expectations.
	{"expectation without a bound", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: gce-pd}
expectations: [{test: randread-4k-qd256, metric: read_iops}]`, "an expectation needs atLeast, atMost or relative"},
	{"expectation atLeast above atMost", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: gce-pd}
expectations: [{test: t, metric: read_iops, atLeast: 10, atMost: 5}]`, "atLeast must not be greater than atMost"},
	{"expectation relative and absolute", "MPIBenchmark", MPISpec + `
expectations: [{test: osu_latency, metric: latency, atMost: 10, relative: {baseline: b}}]`, "relative cannot be combined with atLeast or atMost"},
	{"expectation tolerance without %", "MPIBenchmark", MPISpec + `
expectations: [{test: osu_latency, metric: latency, relative: {baseline: b, tolerance: "0.05"}}]`, "tolerance must be a percentage such as 5% or 2.5%"},
	{"expectation relative to a benchmark and its history", "MPIBenchmark", MPISpec + `
expectations: [{test: osu_latency, metric: latency, relative: {baseline: b, history: {runs: 5}}}]`, "relative needs one baseline: another benchmark (baseline) or the figure's own earlier runs (history), not both"},
	{"expectation relative to nothing", "MPIBenchmark", MPISpec + `
expectations: [{test: osu_latency, metric: latency, relative: {tolerance: 5%}}]`, "relative needs one baseline"},
	{"expectation history of 0 runs", "MPIBenchmark", MPISpec + `
expectations: [{test: osu_latency, metric: latency, relative: {history: {runs: 0}}}]`, "spec.expectations[0].relative.history.runs"},

	// MPIBenchmark.
	{"osu_latency with 4 ranks", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_latency]
layout: {nodes: 2, ranksPerNode: 2}
mpi: {}`, "point-to-point OSU tests (osu_latency, osu_bw, osu_bibw) need exactly 2 ranks in total"},
	{"osu_bw with 1 rank", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_bw]
layout: {nodes: 1, ranksPerNode: 1}
mpi: {}`, "need exactly 2 ranks in total"},
	{"IMB PingPong with 3 ranks", "MPIBenchmark", `
nodeSelector: {a: b}
suite: imb
tests: [PingPong]
layout: {nodes: 3}
mpi: {implementation: Intel}`, "IMB PingPong and PingPing need exactly 2 ranks in total"},
	{"osu_multi_lat with an odd rank count", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_multi_lat]
layout: {nodes: 3}
mpi: {}`, "multi-pair tests (osu_multi_lat, osu_mbw_mr, Uniband, Biband) need an even number of ranks"},
	{"IMB test name in an osu suite", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [PingPong]
layout: {nodes: 2}
mpi: {}`, "osu tests are OSU micro-benchmark names"},
	{"OSU test name in an imb suite", "MPIBenchmark", `
nodeSelector: {a: b}
suite: imb
tests: [osu_allreduce]
layout: {nodes: 2}
mpi: {}`, "imb tests are IMB-MPI1 benchmark names"},
	{"message size min above max", "MPIBenchmark", MPISpec + `
messageSizes: {min: 1024, max: 8}`, "messageSizes.min must not be greater than messageSizes.max"},
	{"IMB message size not a power of two", "MPIBenchmark", `
nodeSelector: {a: b}
suite: imb
tests: [Allreduce]
layout: {nodes: 4}
mpi: {implementation: Intel}
messageSizes: {min: 0, max: 1000000}`, "IMB takes message sizes as powers of two (-msglog)"},
	{"message size beyond 1 GiB", "MPIBenchmark", MPISpec + `
messageSizes: {max: 4294967296}`, "should be less than or equal to 1073741824"},
	{"explicit binding without CPUs", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_bw]
layout: {nodes: 1, ranksPerNode: 2, cpuBinding: {policy: explicit, cpus: [0]}}
mpi: {}`, "explicit cpuBinding needs one CPU per rank on a node"},
	{"CPUs with policy core", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_bw]
layout: {nodes: 1, ranksPerNode: 2, cpuBinding: {policy: core, cpus: [0, 8]}}
mpi: {}`, "cpus are only used with policy explicit"},
	{"extraArgs with a shell pipe", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {extraArgs: ["-m 8 | tee /tmp/x"]}`, "extraArgs are passed as argv, never through a shell"},
	{"extraArgs with command substitution", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {extraArgs: ["$(id)"]}`, "remove shell characters"},
	{"env name with a dash", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {env: [{name: I-MPI-FABRICS, value: ofi}]}`, "environment variable names are letters, digits and '_'"},
	{"unknown MPI implementation", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {implementation: MVAPICH}`, `supported values: "OpenMPI", "Intel", "MPICH"`},
	{"ior suite without ior settings", "MPIBenchmark", `
nodeSelector: {a: b}
suite: ior
tests: [write]
layout: {nodes: 2}
mpi: {}`, "ior settings are required with suite ior and only allowed with it"},
	{"ior direct I/O through MPIIO", "MPIBenchmark", `
nodeSelector: {a: b}
suite: ior
tests: [write, read]
layout: {nodes: 2}
mpi: {}
ior: {api: MPIIO, directIO: true}`, "directIO (--posix.odirect) needs api POSIX"},
	{"ior with message sizes", "MPIBenchmark", `
nodeSelector: {a: b}
suite: ior
tests: [write]
layout: {nodes: 2}
mpi: {}
ior: {}
messageSizes: {max: 1024}`, "messageSizes apply to osu and imb"},
	{"full statistics for IMB", "MPIBenchmark", `
nodeSelector: {a: b}
suite: imb
tests: [Allreduce]
layout: {nodes: 2}
mpi: {}
fullStatistics: true`, "fullStatistics (-f) is an OSU option"},

	// BenchmarkPool.
	{"gke provider without gke settings", "BenchmarkPool", `
provider: gke`, "provider gke needs spec.gke and no spec.existing"},
	{"gke settings with provider existing", "BenchmarkPool", `
provider: existing
existing: {nodeSelector: {a: b}}
gke: {machineType: c3-highcpu-8, nodeCount: 2}`, "spec.gke is only allowed with provider gke"},
	{"compact placement with one node", "BenchmarkPool", `
provider: gke
gke: {machineType: c3-highcpu-8, nodeCount: 1, compactPlacement: {}}`, "compactPlacement places several nodes close together: it needs nodeCount >= 2"},
	{"Tier_1 without gVNIC", "BenchmarkPool", `
provider: gke
gke: {machineType: c3-highcpu-176, nodeCount: 2, networkTier: TIER_1}`, "networkTier TIER_1 needs gvnic: true"},
	{"threads per core 4", "BenchmarkPool", `
provider: gke
gke: {machineType: c3-highcpu-8, nodeCount: 2, threadsPerCore: 4}`, `supported values: "1", "2"`},
	{"machine type with capitals", "BenchmarkPool", `
provider: gke
gke: {machineType: C3-HighCPU-8, nodeCount: 2}`, "machineType is a Compute Engine machine type"},
	{"GKE sysctl outside the allow-list", "BenchmarkPool", `
provider: gke
gke: {machineType: c3-highcpu-8, nodeCount: 2, linuxNodeConfig: {sysctls: [{name: kernel.sched_migration_cost_ns, value: "5000000"}]}}`, "GKE's linuxNodeConfig accepts only its allow-list"},

	{"compact placement on a series GKE does not place compactly", "BenchmarkPool", `
provider: gke
gke: {machineType: e2-standard-8, nodeCount: 2, compactPlacement: {}}`, "compactPlacement: GKE offers compact placement only on the machine series C2, C2D, C3, C3D, C4A, C4D, C4N, H3, H4D, N2, N2D, Z4D and the GPU series A2, A3, G2: choose such a machineType or remove compactPlacement"},
	{"Tier_1 on 8 vCPUs", "BenchmarkPool", `
provider: gke
gke: {machineType: c2-standard-8, nodeCount: 2, gvnic: true, networkTier: TIER_1}`, "networkTier TIER_1: GKE gives Tier_1 bandwidth only to N2, N2D, C2, C2D and C3 machine types with at least 30 vCPUs (such as c2-standard-30 or c3-highcpu-44): choose such a machineType or remove networkTier"},
	{"Tier_1 on a series without it", "BenchmarkPool", `
provider: gke
gke: {machineType: e2-standard-32, nodeCount: 2, gvnic: true, networkTier: TIER_1}`, "networkTier TIER_1: GKE gives Tier_1 bandwidth only to N2, N2D, C2, C2D and C3 machine types with at least 30 vCPUs"},
	{"threads per core on T2D", "BenchmarkPool", `
provider: gke
gke: {machineType: t2d-standard-8, nodeCount: 2, threadsPerCore: 1}`, "threadsPerCore: GKE cannot set threads per core on T2D, T2A or C4A (one thread per core), on shared-core machine types (e2-micro, e2-small, e2-medium, f1-micro, g1-small) or below 2 vCPUs: remove threadsPerCore or choose another machineType"},
	{"threads per core on a shared core", "BenchmarkPool", `
provider: gke
gke: {machineType: e2-medium, nodeCount: 2, threadsPerCore: 1}`, "threadsPerCore: GKE cannot set threads per core on T2D, T2A or C4A"},
	{"threads per core below 2 vCPUs", "BenchmarkPool", `
provider: gke
gke: {machineType: n1-standard-1, nodeCount: 2, threadsPerCore: 1}`, "threadsPerCore: GKE cannot set threads per core on T2D, T2A or C4A"},
	{"GKE sysctl the pinned API does not list", "BenchmarkPool", `
provider: gke
gke: {machineType: c3-highcpu-8, nodeCount: 2, linuxNodeConfig: {sysctls: [{name: net.ipv4.neigh.default.gc_thresh3, value: "8192"}]}}`, "GKE's linuxNodeConfig accepts only its allow-list"},
	{"node location that is a region", "BenchmarkPool", `
provider: gke
gke: {machineType: c3-highcpu-8, nodeCount: 2, nodeLocations: [us-central1]}`, "spec.gke.nodeLocations[0]: Invalid value: \"us-central1\": spec.gke.nodeLocations[0] in body should match '^[a-z]+-[a-z]+[0-9]+-[a-z]$'"},
	{"node service account that is not an email", "BenchmarkPool", `
provider: gke
gke: {machineType: c3-highcpu-8, nodeCount: 2, serviceAccount: benchwright-nodes}`, "spec.gke.serviceAccount: Invalid value: \"benchwright-nodes\": spec.gke.serviceAccount in body should match"},
	{"node scope that is not a Google API scope", "BenchmarkPool", `
provider: gke
gke: {machineType: c3-highcpu-8, nodeCount: 2, oauthScopes: [cloud-platform]}`, "spec.gke.oauthScopes[0]: Invalid value: \"cloud-platform\": spec.gke.oauthScopes[0] in body should match"},

	// TuningProfile.
	{"tuning: sysctl key with slashes", "TuningProfile", `
pool: p
sysctls: [{name: net/core/busy_poll, value: "50"}]`, "sysctl names are dotted lower-case words such as net.core.busy_poll"},
	{"tuning: sysctl key in capitals", "TuningProfile", `
pool: p
sysctls: [{name: Net.Core.Busy_Poll, value: "50"}]`, "sysctl names are dotted lower-case words"},
	{"tuning: sysctl value with a newline", "TuningProfile", `
pool: p
sysctls: [{name: net.core.busy_poll, value: "50\nkernel.x=1"}]`, "sysctl values are numbers or words separated by spaces"},
	{"tuning: maxFrequency with a space", "TuningProfile", `
pool: p
cpu: {maxFrequency: "2.2 GHz"}`, "maxFrequency is a whole number of kHz written with the unit GHz, MHz or kHz"},
	{"tuning: maxFrequency without a unit", "TuningProfile", `
pool: p
cpu: {maxFrequency: "2200000"}`, "maxFrequency is a whole number of kHz written with the unit GHz, MHz or kHz"},
	{"tuning: maxFrequency finer than a kHz", "TuningProfile", `
pool: p
cpu: {maxFrequency: "2.2000001GHz"}`, "maxFrequency is a whole number of kHz written with the unit GHz, MHz or kHz"},
	{"tuning: boost neither on nor off", "TuningProfile", `
pool: p
cpu: {boost: "true"}`, `supported values: "on", "off"`},
	{"tuning: cpu without a setting", "TuningProfile", `
pool: p
cpu: {}`, "cpu needs at least one of governor, smt, maxFrequency and boost"},
	{"tuning: nothing to tune", "TuningProfile", `
pool: p`, "a tuning profile needs at least one of preset, sysctls, cpu and transparentHugepages"},
	// Durations: a string Go cannot parse would be stored, and then every
	// list of the kind would fail to decode in the manager.
	{"storage: fio runtime without a unit", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {jobs: [{name: r, rw: randread, runtime: "60"}]}`, "a duration is a number with a unit, such as 90s"},
	{"storage: fio preset rampTime in words", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: gce-pd, rampTime: "5 seconds"}`, "a duration is a number with a unit, such as 90s"},
	{"mpi: timeouts.start in words", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {}
timeouts: {start: "5 minutes"}`, "a duration is a number with a unit, such as 90s"},
	{"net: timeouts.run as a bare number", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}
iperf3: {}
timeouts: {run: "3600"}`, "a duration is a number with a unit, such as 90s"},
	{"storage: timeouts.waitForNodes negative", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: gce-pd}
timeouts: {waitForNodes: "-1h"}`, "a duration is a number with a unit, such as 90s"},
	{"storage: monitoring.interval below 100ms", "StorageBenchmark", `
nodeSelector: {a: b}
volumes: {emptyDir: {}}
fio: {preset: gce-pd}
monitoring: {interval: 10ms}`, "interval is a duration from 100ms to 1m"},
	{"mpi: monitoring.interval in words", "MPIBenchmark", `
nodeSelector: {a: b}
suite: osu
tests: [osu_latency]
layout: {nodes: 2}
mpi: {}
monitoring: {interval: "one second"}`, "interval is a duration from 100ms to 1m"},
	{"net: monitoring.interval over a minute", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}
iperf3: {}
monitoring: {interval: 2m}`, "interval is a duration from 100ms to 1m"},
	{"net: UDP bitrate with a unit word", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}
iperf3: {protocol: UDP, bitrate: 10Gbps}`, "bitrate is a rate in bits/s"},
	// NetworkBenchmark.
	{"net: neither fabtests nor iperf3", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}`, "set exactly one of fabtests and iperf3"},
	{"net: explicit pair on a node that does not exist", "NetworkBenchmark", `
nodeSelector: {a: b}
nodes: 2
pairs: {explicit: [{server: {node: 0, cpu: 0}, client: {node: 2, cpu: 0}}]}
iperf3: {}`, "node indexes run from 0 to nodes-1"},
	{"net: a pair from a CPU to itself", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {explicit: [{server: {cpu: 3}, client: {cpu: 3}}]}
iperf3: {}`, "must not be the same CPU of the same node"},
	{"net: interNode on one node", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {scopes: [interNode]}
fabtests: {tests: [fi_msg_bw]}`, "the interNode scope needs nodes: 2 or more"},
	{"net: explicit and generated pairs", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}], scopes: [intraSocket]}
fabtests: {tests: [fi_msg_bw]}`, "give pairs either as explicit"},
	{"net: from without scopes", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {from: {chiplet: 1}}
fabtests: {tests: [fi_msg_bw]}`, "give pairs either as explicit"},
	{"net: unknown scope", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {scopes: [intraChiplet]}
fabtests: {tests: [fi_msg_bw]}`, `supported values: "intraSocket", "interSocket", "interNode"`},
	{"net: unknown fabtests program", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {scopes: [intraSocket]}
fabtests: {tests: [fi_ud_pingpong]}`, `supported values: "fi_msg_bw"`},
	{"net: rdm over tcp", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {scopes: [intraSocket]}
fabtests: {tests: [fi_rdm_tagged_bw], provider: tcp}`, "use provider sockets for fi_rdm_* and fi_rma_bw"},
	{"net: rmaOperation without fi_rma_bw", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {scopes: [intraSocket]}
fabtests: {tests: [fi_msg_bw], rmaOperation: write}`, "rmaOperation applies to fi_rma_bw"},
	{"net: provider with a shell character", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {scopes: [intraSocket]}
fabtests: {tests: [fi_msg_bw], provider: "tcp;rm -rf"}`, "provider is a libfabric provider name"},
	{"net: TCP with a bitrate", "NetworkBenchmark", `
nodeSelector: {a: b}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}
iperf3: {bitrate: 10G}`, "bitrate applies to UDP"},
	{"tuning: core_pattern even with allowUnlistedSysctls", "TuningProfile", `
pool: p
allowUnlistedSysctls: true
sysctls: [{name: kernel.core_pattern, value: "|/tmp/x"}]`, "no TuningProfile may set kernel.modprobe"},
	{"tuning: fs.* even with allowUnlistedSysctls", "TuningProfile", `
pool: p
allowUnlistedSysctls: true
sysctls: [{name: fs.suid_dumpable, value: "2"}]`, "no TuningProfile may set kernel.modprobe"},
	{"tuning: a usermode helper", "TuningProfile", `
pool: p
sysctls: [{name: kernel.usermodehelper.bset, value: "4294967295 4294967295"}]`, "no TuningProfile may set kernel.modprobe"},
	{"tuning: kernel.panic without allowUnlistedSysctls", "TuningProfile", `
pool: p
sysctls: [{name: kernel.panic, value: "10"}]`, "sysctls outside the tuner's allow-list"},
	{"tuning: per-interface forwarding without allowUnlistedSysctls", "TuningProfile", `
pool: p
sysctls: [{name: net.ipv4.conf.eth0.forwarding, value: "0"}]`, "would cut the node's pods off the network or take the node down; set allowUnlistedSysctls to allow them"},
	{"tuning: forwarding on every interface without allowUnlistedSysctls", "TuningProfile", `
pool: p
sysctls: [{name: net.ipv4.conf.all.forwarding, value: "0"}]`, "would cut the node's pods off the network or take the node down"},
	{"tuning: panic on OOM without allowUnlistedSysctls", "TuningProfile", `
pool: p
sysctls: [{name: vm.swappiness, value: "10"}, {name: vm.panic_on_oom, value: "1"}]`, "would cut the node's pods off the network or take the node down"},
	{"tuning: bridge netfilter without allowUnlistedSysctls", "TuningProfile", `
pool: p
sysctls: [{name: net.bridge.bridge-nf-call-iptables, value: "0"}]`, "would cut the node's pods off the network or take the node down"},
	{"tuning: both pool and nodeSelector", "TuningProfile", `
pool: p
nodeSelector: {benchwright.io/benchmark-node: "true"}
preset: hpc-compute`, "set exactly one of pool (a BenchmarkPool) and nodeSelector"},
	{"tuning: a nodeSelector without the admin's opt-in", "TuningProfile", `
nodeSelector: {kubernetes.io/os: linux}
preset: hpc-compute`, `nodeSelector must hold benchwright.io/benchmark-node: "true": a TuningProfile tunes only the nodes an admin opted in`},
	{"tuning: a nodeSelector with the opt-in turned off", "TuningProfile", `
nodeSelector: {benchwright.io/benchmark-node: "false"}
preset: hpc-compute`, `nodeSelector must hold benchwright.io/benchmark-node: "true"`},
	{"tuning: a nodeSelector for the control plane", "TuningProfile", `
nodeSelector: {benchwright.io/benchmark-node: "true", node-role.kubernetes.io/control-plane: ""}
preset: hpc-compute`, "a TuningProfile never tunes control-plane nodes"},
	{"tuning: unknown governor", "TuningProfile", `
pool: p
cpu: {governor: turbo}`, `supported values: "performance", "powersave"`},
	{"tuning: SMT as a number", "TuningProfile", `
pool: p
cpu: {smt: "1"}`, `supported values: "on", "off"`},
}

// Bases are the valid specs, by kind.
var Bases = map[string]string{
	"StorageBenchmark": StorageSpec, "MPIBenchmark": MPISpec,
	"BenchmarkPool": PoolSpec, "TuningProfile": TuningSpec, "NetworkBenchmark": NetworkSpec,
}
