package v1alpha1

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Label and annotation keys that benchwright sets or reads.
const (
	// PoolLabel marks the nodes of a BenchmarkPool; its value is the pool name.
	// The same key is the taint key that keeps other pods off those nodes.
	PoolLabel = "benchwright.io/pool"
	// CampaignLabel groups benchmarks of one campaign for reports.
	CampaignLabel = "benchwright.io/campaign"
	// WorkflowAnnotation, on a campaign's BenchmarkPools and TuningProfiles,
	// names the Argo Workflow that made them as NAMESPACE/NAME; with
	// WorkflowUIDAnnotation (its UID) the manager deletes them once that
	// Workflow is gone (deleted mid-run, its exit handler never ran).
	WorkflowAnnotation = "benchwright.io/workflow"
	// WorkflowUIDAnnotation is the UID of the Workflow WorkflowAnnotation names.
	WorkflowUIDAnnotation = "benchwright.io/workflow-uid"
	// CampaignCellAnnotation, on a campaign's BenchmarkPool, names the tuning
	// whose cell holds the pool now: the pool is not idle while it is set,
	// and a shared pool's other cells wait for it to be cleared.
	CampaignCellAnnotation = "benchwright.io/campaign-cell"
	// AxisLabelPrefix starts a benchmark label that names a number the user
	// varied outside benchwright: benchwright.io/x-NAME: "VALUE" is copied onto
	// every sample as label x-NAME, and a report plots the figures of runs
	// that differ in it against it, with a least-squares fit.
	AxisLabelPrefix = "benchwright.io/x-"
	// BenchmarkLabel names the benchmark a child object belongs to.
	BenchmarkLabel = "benchwright.io/benchmark"
	// KindLabel names the kind of the benchmark a child object belongs to.
	KindLabel = "benchwright.io/kind"
	// RepetitionLabel holds the repetition index of a child Job or MPIJob.
	RepetitionLabel = "benchwright.io/repetition"
	// TuningProfileLabel marks the tuner pods of a TuningProfile.
	TuningProfileLabel = "benchwright.io/tuning-profile"
	// BenchmarkNodeLabel, set to "true" by an admin, opts a node in to
	// existing BenchmarkPools: only such nodes are ever labelled and tainted.
	BenchmarkNodeLabel = "benchwright.io/benchmark-node"
	// MachineTypeLabel is the node label GKE sets with the machine type.
	MachineTypeLabel = "node.kubernetes.io/instance-type"
	// FioJobFileAnnotation holds, on a StorageBenchmark's Job's pod template
	// (and so on its pods), the fio job file the pod runs.
	FioJobFileAnnotation = "benchwright.io/fio-job-file"
	// MPIStepsAnnotation holds, on an MPIJob's launcher pod template (and so
	// on the launcher pod), the launcher's steps as JSON.
	MPIStepsAnnotation = "benchwright.io/mpi-steps"
)

// ControlPlaneLabels mark the nodes of the control plane, which no pool takes
// and no tuner tunes.
var ControlPlaneLabels = []string{"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"}

// Condition types shared by StorageBenchmark and MPIBenchmark. A script waits on
// them: `kubectl wait --for=condition=Succeeded storagebench/x`.
const (
	// ConditionRunning is True while a repetition runs.
	ConditionRunning = "Running"
	// ConditionSucceeded is True when every repetition finished and was parsed.
	ConditionSucceeded = "Succeeded"
	// ConditionFailed is True when the benchmark gave up; the message says why.
	ConditionFailed = "Failed"
	// ConditionMeetsExpectations is True when every expectation holds; the
	// message names the failing figures otherwise.
	ConditionMeetsExpectations = "MeetsExpectations"
	// ConditionRegressed is the run against its configuration's history in
	// the results database: True when a figure regressed, False when none
	// did (reason Improved, Steady, or Outlier: the run looks like a
	// one-off that a later run may confirm), Unknown when it could not tell
	// (TooFewRuns, HistoryUnavailable). Absent without a results database.
	ConditionRegressed = "Regressed"
)

// Reasons of the Regressed condition.
const (
	ReasonRegressed          = "Regressed"
	ReasonImproved           = "Improved"
	ReasonSteady             = "Steady"
	ReasonOutlier            = "Outlier"
	ReasonTooFewRuns         = "TooFewRuns"
	ReasonHistoryUnavailable = "HistoryUnavailable"
)

// Condition reasons of benchmarks.
const (
	ReasonPending            = "Pending"
	ReasonWaitingForPool     = "WaitingForPool"
	ReasonWaitingForTuning   = "WaitingForTuning"
	ReasonQueued             = "Queued"
	ReasonVolumesPending     = "VolumesPending"
	ReasonStarting           = "Starting"
	ReasonRunning            = "RepetitionRunning"
	ReasonCompleted          = "Completed"
	ReasonToolFailed         = "ToolFailed"
	ReasonMPIMismatch        = "MPIMismatch"
	ReasonUnparsableOutput   = "UnparsableOutput"
	ReasonTimeout            = "Timeout"
	ReasonEvicted            = "Evicted"
	ReasonRetriesExhausted   = "RetriesExhausted"
	ReasonNameConflict       = "NameConflict"
	ReasonInvalidSpec        = "InvalidSpec"
	ReasonLogsUnavailable    = "LogsUnavailable"
	ReasonExpectationsMet    = "ExpectationsMet"
	ReasonExpectationsFailed = "ExpectationsFailed"
	ReasonBaselineMissing    = "BaselineMissing"
	// ReasonPodsForbidden: the namespace's admission refuses the
	// benchmark's pods (Pod Security: hostNetwork in a baseline namespace).
	ReasonPodsForbidden = "PodsForbidden"
	// ReasonOutputTooLarge: a log over what the manager reads of one log, or
	// a run over the samples it keeps (podlogs.MaxLogBytes,
	// results.MaxRunSamples).
	ReasonOutputTooLarge = "OutputTooLarge"
)

// BenchmarkState is the one-word state shown by `kubectl get`. It is derived from
// the conditions on every status write; the conditions are the source of truth.
// +kubebuilder:validation:Enum=Pending;Waiting;Running;Succeeded;Failed
type BenchmarkState string

// Benchmark states.
const (
	StatePending   BenchmarkState = "Pending"
	StateWaiting   BenchmarkState = "Waiting"
	StateRunning   BenchmarkState = "Running"
	StateSucceeded BenchmarkState = "Succeeded"
	StateFailed    BenchmarkState = "Failed"
)

// PoolName is the name of a cluster-scoped BenchmarkPool.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="must be a BenchmarkPool name: lower-case letters, digits and '-', starting and ending with a letter or digit"
type PoolName string

// TuningProfileName is the name of a cluster-scoped TuningProfile.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$')",message="must be a TuningProfile name: lower-case letters, digits, '-' and '.'"
type TuningProfileName string

// BenchmarkName is the name of a benchmark of the same kind in the same namespace.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$')",message="must be a benchmark name: lower-case letters, digits, '-' and '.'"
type BenchmarkName string

// Placement says where a benchmark runs and how its nodes are tuned. Exactly one
// of pool and nodeSelector is set.
type Placement struct {
	// pool names the BenchmarkPool whose nodes run the benchmark. Its pods select the
	// pool label and tolerate the pool taint; benchmarks that share a pool run one at
	// a time, in creation order.
	// +optional
	Pool PoolName `json:"pool,omitempty"`

	// nodeSelector selects the nodes by label when no pool is used (a dev cluster,
	// on-prem nodes). It may not select a pool's nodes (benchwright.io/pool:
	// set pool, and the benchmark waits for its turn) nor the control plane
	// (node-role.kubernetes.io/*).
	// +optional
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="!('benchwright.io/pool' in self)",message="nodeSelector must not select on benchwright.io/pool: set pool to run on a BenchmarkPool's nodes, in its turn"
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k.startsWith('node-role.kubernetes.io/'))",message="nodeSelector must not select on node-role.kubernetes.io/*: benchmarks never run on control-plane nodes"
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations are added to the benchmark pods, for tainted nodes outside a
	// pool. Each names the key of the taint it tolerates (none tolerates every
	// taint), and none tolerates a pool's taint (benchwright.io/pool) or the
	// control plane's (node-role.kubernetes.io/*).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(t, has(t.key) && t.key != '')",message="a toleration needs a key: one without tolerates every taint, a BenchmarkPool's and the control plane's included"
	// +kubebuilder:validation:XValidation:rule="!self.exists(t, has(t.key) && (t.key == 'benchwright.io/pool' || t.key.startsWith('node-role.kubernetes.io/')))",message="tolerations must not tolerate the taints benchwright.io/pool (set pool to run on a BenchmarkPool's nodes, in its turn) or node-role.kubernetes.io/* (benchmarks never run on control-plane nodes)"
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// tuning names a TuningProfile that must report Tuned on the benchmark's nodes
	// before the benchmark starts.
	// +optional
	Tuning TuningProfileName `json:"tuning,omitempty"`
}

// BenchmarkSpecCommon is the part of the spec every benchmark kind shares,
// which the shared state machine reads: where the benchmark runs, how often,
// how long each wait may take, how often a lost repetition is retried, and
// what its figures must meet.
type BenchmarkSpecCommon struct {
	Placement        `json:",inline"`
	RepetitionPolicy `json:",inline"`

	// maxRetries is how often a repetition is retried after one of its pods was
	// evicted, preempted or lost with its node (for an MPIBenchmark: a worker
	// or the launcher). A tool that fails is never retried: its failure is the
	// result.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	MaxRetries int32 `json:"maxRetries,omitempty"`

	// timeouts bound the waits; for an MPIBenchmark timeouts.start bounds the
	// wait for its workers to be ready.
	// +optional
	Timeouts Timeouts `json:"timeouts,omitempty"`

	// expectations turn figures into the MeetsExpectations condition.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Expectations []Expectation `json:"expectations,omitempty"`

	// monitoring records what the nodes did during the run: a sampler
	// sidecar in every benchmark pod reads the node's CPUs, memory, disks and
	// network, and the pod's own processes, every interval.
	// +optional
	Monitoring Monitoring `json:"monitoring,omitempty"`
}

// Monitoring is the sampler sidecar of a benchmark's pods. Its series is
// stored with the run's files (monitor/), its summaries per test are
// samples with the label source=sampler, and the report plots it.
type Monitoring struct {
	// enabled runs the sampler; false leaves it out of the pods. Default true.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// interval is the time between two readings, from 100ms to 1m. Default 1s.
	// The series stays within 8 MiB of the sampler's log: each time half of
	// what is left is spent, the interval doubles.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') && duration(self) >= duration('100ms') && duration(self) <= duration('1m')",message="interval is a duration from 100ms to 1m, such as 1s or 500ms"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Interval *metav1.Duration `json:"interval,omitempty"`
}

// DefaultMonitoringInterval is monitoring.interval's default.
const DefaultMonitoringInterval = time.Second

// On tells whether the sampler runs.
func (m Monitoring) On() bool { return m.Enabled == nil || *m.Enabled }

// IntervalOrDefault is the sampler's interval.
func (m Monitoring) IntervalOrDefault() time.Duration {
	if m.Interval == nil || m.Interval.Duration <= 0 {
		return DefaultMonitoringInterval
	}
	return m.Interval.Duration
}

// RepetitionPolicy says how often a benchmark is repeated and how many of the first
// repetitions are discarded as warm-up.
type RepetitionPolicy struct {
	// repetitions is how many times the whole benchmark runs; statistics (median,
	// min, max, CV) are taken over them. The manager reads at most 16 MiB of
	// each pod's log and keeps at most 100000 samples per run (all
	// repetitions, nodes and pairs together); a benchmark over either fails
	// with reason OutputTooLarge.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Repetitions int32 `json:"repetitions,omitempty"`

	// warmupRepetitions is how many of the first repetitions are run but left out
	// of the statistics (their samples are kept, labelled warmup).
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	WarmupRepetitions int32 `json:"warmupRepetitions,omitempty"`
}

// Timeouts bound each wait of a benchmark. A wait that runs out fails the
// benchmark with reason Timeout and a message that says what was waited for.
type Timeouts struct {
	// waitForNodes bounds the wait for the pool to be Ready and the tuning profile to
	// be Tuned, and for a shared pool to be free. Default 1h.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="a duration is a number with a unit, such as 90s, 15m or 1h30m (units ns, us, ms, s, m, h)"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	WaitForNodes *metav1.Duration `json:"waitForNodes,omitempty"`

	// start bounds the time from creating a repetition's Job or MPIJob to its pods
	// running: volumes bound, images pulled, MPI workers ready. Default 15m.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="a duration is a number with a unit, such as 90s, 15m or 1h30m (units ns, us, ms, s, m, h)"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Start *metav1.Duration `json:"start,omitempty"`

	// run bounds one repetition once it runs. Default 2h.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$')",message="a duration is a number with a unit, such as 90s, 15m or 1h30m (units ns, us, ms, s, m, h)"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Run *metav1.Duration `json:"run,omitempty"`
}

// ExpectationDirection tells whether a relative expectation wants the figure at
// least the baseline's or at most.
// +kubebuilder:validation:Enum=HigherIsBetter;LowerIsBetter
type ExpectationDirection string

// Expectation directions.
const (
	HigherIsBetter ExpectationDirection = "HigherIsBetter"
	LowerIsBetter  ExpectationDirection = "LowerIsBetter"
)

// Expectation turns a figure into pass or fail: the median over repetitions of
// one test's metric is compared with an absolute bound or with a baseline
// benchmark. The result is the MeetsExpectations condition.
// +kubebuilder:validation:XValidation:rule="has(self.atLeast) || has(self.atMost) || has(self.relative)",message="an expectation needs atLeast, atMost or relative"
// +kubebuilder:validation:XValidation:rule="!has(self.relative) || (!has(self.atLeast) && !has(self.atMost))",message="relative cannot be combined with atLeast or atMost: use two expectations"
// +kubebuilder:validation:XValidation:rule="!has(self.atLeast) || !has(self.atMost) || self.atLeast <= self.atMost",message="atLeast must not be greater than atMost"
type Expectation struct {
	// test is the test the figure belongs to: a fio job name, a dd test name, or an
	// MPI test such as osu_latency or PingPong.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Test string `json:"test"`

	// metric is the figure's metric as in the samples, e.g. read_iops, write_bw,
	// read_clat_p99, latency, bandwidth.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z][a-z0-9_.]*$')",message="metric must be a sample metric name such as read_iops or latency"
	Metric string `json:"metric"`

	// messageSize selects the message size in bytes for MPI tests that report one
	// figure per size. Without it the summary figure is used (latency at the
	// smallest size, bandwidth at its peak).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1073741824
	MessageSize *int64 `json:"messageSize,omitempty"`

	// atLeast is the lowest acceptable value, in the metric's unit.
	// +optional
	AtLeast *float64 `json:"atLeast,omitempty"`

	// atMost is the highest acceptable value, in the metric's unit.
	// +optional
	AtMost *float64 `json:"atMost,omitempty"`

	// relative compares with another benchmark of the same kind in the namespace.
	// +optional
	Relative *RelativeExpectation `json:"relative,omitempty"`
}

// RelativeExpectation compares a figure with the same figure of a baseline:
// within a tolerance of it, or as a ratio (figure / baseline's figure)
// between atLeast and atMost. The baseline is another benchmark (checked
// once both have succeeded, whichever ends last), or the figure's own
// history in the results database.
// +kubebuilder:validation:XValidation:rule="!has(self.atLeast) || !has(self.atMost) || self.atLeast <= self.atMost",message="relative.atLeast is above relative.atMost: no ratio can hold"
// +kubebuilder:validation:XValidation:rule="has(self.baseline) != has(self.history)",message="relative needs one baseline: another benchmark (baseline) or the figure's own earlier runs (history), not both"
type RelativeExpectation struct {
	// baseline names a benchmark of the same kind in the same namespace.
	// +optional
	Baseline BenchmarkName `json:"baseline,omitempty"`

	// history is the figure's own earlier runs: the median of their medians,
	// in the results database (the manager's --results-db). The first run
	// of a configuration has none: its expectation is Unknown.
	// +optional
	History *HistoryBaseline `json:"history,omitempty"`

	// atLeast is the lowest acceptable ratio of the figure to the baseline's,
	// e.g. 2.6 for "at least 2.6x the baseline's read IOPS". With atLeast or
	// atMost, tolerance and direction are not used.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self > 0.0",message="relative.atLeast is a ratio to the baseline: above 0"
	AtLeast *float64 `json:"atLeast,omitempty"`

	// atMost is the highest acceptable ratio of the figure to the baseline's,
	// e.g. 0.5 for "at most half the baseline's latency".
	// +optional
	// +kubebuilder:validation:XValidation:rule="self > 0.0",message="relative.atMost is a ratio to the baseline: above 0"
	AtMost *float64 `json:"atMost,omitempty"`

	// tolerance is how much worse than the baseline the figure may be, as a
	// percentage such as "5%".
	// +optional
	// +kubebuilder:default="5%"
	// +kubebuilder:validation:MaxLength=8
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9]{1,3}(\\\\.[0-9]{1,2})?%$')",message="tolerance must be a percentage such as 5% or 2.5%"
	Tolerance string `json:"tolerance,omitempty"`

	// direction says which way is better. Default: LowerIsBetter for latency
	// metrics, HigherIsBetter otherwise.
	// +optional
	Direction ExpectationDirection `json:"direction,omitempty"`
}

// GetBaseline is the named baseline, "" for none (or a nil expectation).
func (r *RelativeExpectation) GetBaseline() BenchmarkName {
	if r == nil {
		return ""
	}
	return r.Baseline
}

// HistoryBaseline is a figure's earlier runs: the runs of the benchmark's
// configuration (its name, pool, tuning and setup) before this one.
type HistoryBaseline struct {
	// runs is how many of the newest earlier runs make the baseline.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Runs int32 `json:"runs,omitempty"`
}

// EnvVar is an environment variable passed to the benchmark tool (argv-safe: no
// shell ever expands it).
type EnvVar struct {
	// name of the variable, e.g. I_MPI_FABRICS.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z_][A-Za-z0-9_]*$')",message="environment variable names are letters, digits and '_', not starting with a digit"
	Name string `json:"name"`

	// value of the variable.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Value string `json:"value,omitempty"`
}

// Sysctl is one kernel parameter and the value to set.
type Sysctl struct {
	// name of the parameter in dotted form, e.g. net.ipv4.tcp_mem.
	// +required
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9_]+(\\\\.[a-z0-9_-]+)+$')",message="sysctl names are dotted lower-case words such as net.core.busy_poll (no '/', no spaces)"
	Name string `json:"name"`

	// value as written to /proc/sys; several numbers are separated by spaces,
	// e.g. "4096 87380 16777216".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9_ .:,/+-]+$')",message="sysctl values are numbers or words separated by spaces; no newlines or shell characters"
	Value string `json:"value"`
}

// Stat summarises one figure over the counted repetitions.
type Stat struct {
	// median over repetitions.
	// +required
	Median float64 `json:"median"`
	// min over repetitions.
	// +required
	Min float64 `json:"min"`
	// max over repetitions.
	// +required
	Max float64 `json:"max"`
	// cv is the coefficient of variation in percent (stddev / mean * 100).
	// +optional
	CV float64 `json:"cv,omitempty"`
	// n is the number of repetitions counted.
	// +required
	N int32 `json:"n"`
}

// BenchmarkStatusCommon holds the status fields every benchmark kind has.
type BenchmarkStatusCommon struct {
	// conditions are Running, Succeeded, Failed and MeetsExpectations.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the generation the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// state is a one-word summary of the conditions, for `kubectl get`.
	// +optional
	State BenchmarkState `json:"state,omitempty"`

	// progress is finished/total repetitions, e.g. "2/5".
	// +optional
	// +kubebuilder:validation:MaxLength=16
	Progress string `json:"progress,omitempty"`

	// completedRepetitions counts repetitions whose output was parsed.
	// +optional
	CompletedRepetitions int32 `json:"completedRepetitions,omitempty"`

	// retries counts attempts repeated after an eviction or a lost pod.
	// +optional
	Retries int32 `json:"retries,omitempty"`

	// queuePosition is the place in the pool's queue while the benchmark waits
	// for a shared pool (1 = next).
	// +optional
	QueuePosition int32 `json:"queuePosition,omitempty"`

	// startTime is when the first repetition was created; the spec is immutable
	// from then on.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the benchmark succeeded or failed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// machineType of the nodes that ran the benchmark.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	MachineType string `json:"machineType,omitempty"`

	// nodes that ran the benchmark.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=128
	// +kubebuilder:validation:items:MaxLength=253
	Nodes []string `json:"nodes,omitempty"`

	// artifactURI is where the raw output, samples and summary are stored.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	ArtifactURI string `json:"artifactURI,omitempty"`
}
