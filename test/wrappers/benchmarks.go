// Package wrappers builds the objects tests need, in the style of
// kubernetes-sigs/jobset's pkg/util/testing: MakeX(name, ns) starts a
// wrapper that embeds the object, chainable setters fill it in, and Obj()
// returns a copy, so one wrapper can be the template of several objects:
//
//	lat := wrappers.MakeMPIBenchmark("lat", ns).Pool("c2d").Layout(2, 1).Tests("osu_latency")
//	a, b := lat.Obj(), lat.Clone().Tests("osu_bw").Obj()
//
// The benchmark wrappers hide the spec's shared part (BenchmarkSpecCommon:
// placement, repetitions, retries, timeouts, expectations). Where the API
// takes exactly one of several fields (pool or nodeSelector, fio or dd,
// claims or emptyDir or hostPath), setting one clears the others.
//
// Setters change the wrapper: call Clone before deriving a variant from a
// wrapper that is kept.
package wrappers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func duration(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

// mergeLabels adds labels to *dst, making the map if there is none.
func mergeLabels(dst *map[string]string, labels map[string]string) {
	if *dst == nil && len(labels) > 0 {
		*dst = make(map[string]string, len(labels))
	}
	for k, v := range labels {
		(*dst)[k] = v
	}
}

// StorageBenchmarkWrapper builds a StorageBenchmark.
type StorageBenchmarkWrapper struct{ benchv1.StorageBenchmark }

// MakeStorageBenchmark is StorageBenchmark ns/name with an empty spec.
func MakeStorageBenchmark(name, ns string) *StorageBenchmarkWrapper {
	return &StorageBenchmarkWrapper{benchv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}}
}

// Obj returns a copy of the benchmark.
func (w *StorageBenchmarkWrapper) Obj() *benchv1.StorageBenchmark { return w.DeepCopy() }

// Clone returns a new wrapper of a copy of the benchmark.
func (w *StorageBenchmarkWrapper) Clone() *StorageBenchmarkWrapper {
	return &StorageBenchmarkWrapper{*w.DeepCopy()}
}

// Name renames the benchmark.
func (w *StorageBenchmarkWrapper) Name(name string) *StorageBenchmarkWrapper {
	w.ObjectMeta.Name = name
	return w
}

// UID sets metadata.uid.
func (w *StorageBenchmarkWrapper) UID(uid string) *StorageBenchmarkWrapper {
	w.ObjectMeta.UID = types.UID(uid)
	return w
}

// Label adds a label.
func (w *StorageBenchmarkWrapper) Label(k, v string) *StorageBenchmarkWrapper {
	mergeLabels(&w.Labels, map[string]string{k: v})
	return w
}

// Generation sets metadata.generation.
func (w *StorageBenchmarkWrapper) Generation(g int64) *StorageBenchmarkWrapper {
	w.ObjectMeta.Generation = g
	return w
}

// CreationTimestamp sets metadata.creationTimestamp.
func (w *StorageBenchmarkWrapper) CreationTimestamp(t time.Time) *StorageBenchmarkWrapper {
	w.ObjectMeta.CreationTimestamp = metav1.NewTime(t)
	return w
}

// Spec replaces the whole spec with a copy of spec.
func (w *StorageBenchmarkWrapper) Spec(spec benchv1.StorageBenchmarkSpec) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec = *spec.DeepCopy()
	return w
}

// Pool places the benchmark on a BenchmarkPool (no nodeSelector).
func (w *StorageBenchmarkWrapper) Pool(pool string) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Pool, w.StorageBenchmark.Spec.NodeSelector = benchv1.PoolName(pool), nil
	return w
}

// NodeSelector places the benchmark on nodes by label (no pool).
func (w *StorageBenchmarkWrapper) NodeSelector(sel map[string]string) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Pool, w.StorageBenchmark.Spec.NodeSelector = "", sel
	return w
}

// Tolerations adds tolerations of the benchmark's pods.
func (w *StorageBenchmarkWrapper) Tolerations(ts ...corev1.Toleration) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Tolerations = append(w.StorageBenchmark.Spec.Tolerations, ts...)
	return w
}

// Tuning names the TuningProfile the nodes must have applied.
func (w *StorageBenchmarkWrapper) Tuning(profile string) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Tuning = benchv1.TuningProfileName(profile)
	return w
}

// Repetitions sets how many repetitions run, warm-ups included.
func (w *StorageBenchmarkWrapper) Repetitions(n int32) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Repetitions = n
	return w
}

// WarmupRepetitions sets how many of the first repetitions do not count.
func (w *StorageBenchmarkWrapper) WarmupRepetitions(n int32) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.WarmupRepetitions = n
	return w
}

// MaxRetries sets how often a lost repetition is retried.
func (w *StorageBenchmarkWrapper) MaxRetries(n int32) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.MaxRetries = n
	return w
}

// StartTimeout sets timeouts.start.
func (w *StorageBenchmarkWrapper) StartTimeout(d time.Duration) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Timeouts.Start = duration(d)
	return w
}

// RunTimeout sets timeouts.run.
func (w *StorageBenchmarkWrapper) RunTimeout(d time.Duration) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Timeouts.Run = duration(d)
	return w
}

// Expectations adds expectations.
func (w *StorageBenchmarkWrapper) Expectations(es ...benchv1.Expectation) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Expectations = append(w.StorageBenchmark.Spec.Expectations, es...)
	return w
}

// Nodes sets on how many nodes the benchmark runs at once.
func (w *StorageBenchmarkWrapper) Nodes(n int32) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Nodes = n
	return w
}

// Claims gives each node count persistent volumes of size; storageClass ""
// leaves the cluster's default.
func (w *StorageBenchmarkWrapper) Claims(count int32, size, storageClass string) *StorageBenchmarkWrapper {
	v := benchv1.StorageVolumes{Count: count, Size: ptr.To(resource.MustParse(size))}
	if storageClass != "" {
		v.StorageClassName = ptr.To(storageClass)
	}
	w.StorageBenchmark.Spec.Volumes = v
	return w
}

// Block makes the claims raw block devices.
func (w *StorageBenchmarkWrapper) Block() *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Volumes.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
	return w
}

// AccessMode sets the claims' access mode.
func (w *StorageBenchmarkWrapper) AccessMode(m corev1.PersistentVolumeAccessMode) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Volumes.AccessMode = m
	return w
}

// EmptyDir makes the volume one emptyDir; sizeLimit "" is none.
func (w *StorageBenchmarkWrapper) EmptyDir(medium corev1.StorageMedium, sizeLimit string) *StorageBenchmarkWrapper {
	e := &benchv1.EmptyDirVolume{Medium: medium}
	if sizeLimit != "" {
		e.SizeLimit = ptr.To(resource.MustParse(sizeLimit))
	}
	w.StorageBenchmark.Spec.Volumes = benchv1.StorageVolumes{Count: 1, EmptyDir: e}
	return w
}

// HostPath makes the volumes directories of the node, one per path.
func (w *StorageBenchmarkWrapper) HostPath(paths ...string) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Volumes = benchv1.StorageVolumes{Count: 1, HostPath: &benchv1.HostPathVolumes{Paths: paths}}
	return w
}

// VolumeCount sets volumes.count alone.
func (w *StorageBenchmarkWrapper) VolumeCount(n int32) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Volumes.Count = n
	return w
}

// Volumes replaces the volumes, for shapes the other setters do not make.
func (w *StorageBenchmarkWrapper) Volumes(v benchv1.StorageVolumes) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Volumes = v
	return w
}

// Fio runs fio with spec (no dd).
func (w *StorageBenchmarkWrapper) Fio(spec benchv1.FioSpec) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Fio, w.StorageBenchmark.Spec.DD = spec.DeepCopy(), nil
	return w
}

// FioJobs runs fio with these jobs (no dd), keeping the other fio settings.
func (w *StorageBenchmarkWrapper) FioJobs(jobs ...benchv1.FioJob) *StorageBenchmarkWrapper {
	w.fio().Jobs = jobs
	return w
}

// FioPreset runs fio with a preset (no dd), keeping the other fio settings.
func (w *StorageBenchmarkWrapper) FioPreset(p benchv1.FioPreset) *StorageBenchmarkWrapper {
	w.fio().Preset = p
	return w
}

func (w *StorageBenchmarkWrapper) fio() *benchv1.FioSpec {
	s := &w.StorageBenchmark.Spec
	s.DD = nil
	if s.Fio == nil {
		s.Fio = &benchv1.FioSpec{}
	}
	return s.Fio
}

// DD runs the dd tests instead of fio.
func (w *StorageBenchmarkWrapper) DD(tests ...benchv1.DDTest) *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Fio, w.StorageBenchmark.Spec.DD = nil, &benchv1.DDSpec{Tests: tests}
	return w
}

// NoTool removes fio and dd both (a spec the API refuses).
func (w *StorageBenchmarkWrapper) NoTool() *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.Fio, w.StorageBenchmark.Spec.DD = nil, nil
	return w
}

// DropCaches drops the node's page cache before each repetition.
func (w *StorageBenchmarkWrapper) DropCaches() *StorageBenchmarkWrapper {
	w.StorageBenchmark.Spec.DropCaches = true
	return w
}

// State sets status.state.
func (w *StorageBenchmarkWrapper) State(s benchv1.BenchmarkState) *StorageBenchmarkWrapper {
	w.Status.State = s
	return w
}

// Conditions adds status conditions.
func (w *StorageBenchmarkWrapper) Conditions(cs ...metav1.Condition) *StorageBenchmarkWrapper {
	w.Status.Conditions = append(w.Status.Conditions, cs...)
	return w
}

// MachineType sets status.machineType.
func (w *StorageBenchmarkWrapper) MachineType(m string) *StorageBenchmarkWrapper {
	w.Status.MachineType = m
	return w
}

// StartTime sets status.startTime.
func (w *StorageBenchmarkWrapper) StartTime(t time.Time) *StorageBenchmarkWrapper {
	w.Status.StartTime = ptr.To(metav1.NewTime(t))
	return w
}

// CompletedRepetitions sets status.completedRepetitions.
func (w *StorageBenchmarkWrapper) CompletedRepetitions(n int32) *StorageBenchmarkWrapper {
	w.Status.CompletedRepetitions = n
	return w
}

// Results sets status.results.
func (w *StorageBenchmarkWrapper) Results(rs ...benchv1.StorageTestResult) *StorageBenchmarkWrapper {
	w.Status.Results = rs
	return w
}

// MPIBenchmarkWrapper builds an MPIBenchmark.
type MPIBenchmarkWrapper struct{ benchv1.MPIBenchmark }

// MakeMPIBenchmark is MPIBenchmark ns/name of suite osu, with no test yet.
func MakeMPIBenchmark(name, ns string) *MPIBenchmarkWrapper {
	return &MPIBenchmarkWrapper{benchv1.MPIBenchmark{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       benchv1.MPIBenchmarkSpec{Suite: benchv1.SuiteOSU},
	}}
}

// Obj returns a copy of the benchmark.
func (w *MPIBenchmarkWrapper) Obj() *benchv1.MPIBenchmark { return w.DeepCopy() }

// Clone returns a new wrapper of a copy of the benchmark.
func (w *MPIBenchmarkWrapper) Clone() *MPIBenchmarkWrapper {
	return &MPIBenchmarkWrapper{*w.DeepCopy()}
}

// Name renames the benchmark.
func (w *MPIBenchmarkWrapper) Name(name string) *MPIBenchmarkWrapper {
	w.ObjectMeta.Name = name
	return w
}

// UID sets metadata.uid.
func (w *MPIBenchmarkWrapper) UID(uid string) *MPIBenchmarkWrapper {
	w.ObjectMeta.UID = types.UID(uid)
	return w
}

// Label adds a label.
func (w *MPIBenchmarkWrapper) Label(k, v string) *MPIBenchmarkWrapper {
	mergeLabels(&w.Labels, map[string]string{k: v})
	return w
}

// Generation sets metadata.generation.
func (w *MPIBenchmarkWrapper) Generation(g int64) *MPIBenchmarkWrapper {
	w.ObjectMeta.Generation = g
	return w
}

// CreationTimestamp sets metadata.creationTimestamp.
func (w *MPIBenchmarkWrapper) CreationTimestamp(t time.Time) *MPIBenchmarkWrapper {
	w.ObjectMeta.CreationTimestamp = metav1.NewTime(t)
	return w
}

// Spec replaces the whole spec with a copy of spec.
func (w *MPIBenchmarkWrapper) Spec(spec benchv1.MPIBenchmarkSpec) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec = *spec.DeepCopy()
	return w
}

// Pool places the benchmark on a BenchmarkPool (no nodeSelector).
func (w *MPIBenchmarkWrapper) Pool(pool string) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Pool, w.MPIBenchmark.Spec.NodeSelector = benchv1.PoolName(pool), nil
	return w
}

// NodeSelector places the benchmark on nodes by label (no pool).
func (w *MPIBenchmarkWrapper) NodeSelector(sel map[string]string) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Pool, w.MPIBenchmark.Spec.NodeSelector = "", sel
	return w
}

// Tolerations adds tolerations of the benchmark's pods.
func (w *MPIBenchmarkWrapper) Tolerations(ts ...corev1.Toleration) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Tolerations = append(w.MPIBenchmark.Spec.Tolerations, ts...)
	return w
}

// Tuning names the TuningProfile the nodes must have applied.
func (w *MPIBenchmarkWrapper) Tuning(profile string) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Tuning = benchv1.TuningProfileName(profile)
	return w
}

// Repetitions sets how many repetitions run, warm-ups included.
func (w *MPIBenchmarkWrapper) Repetitions(n int32) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Repetitions = n
	return w
}

// WarmupRepetitions sets how many of the first repetitions do not count.
func (w *MPIBenchmarkWrapper) WarmupRepetitions(n int32) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.WarmupRepetitions = n
	return w
}

// MaxRetries sets how often a lost repetition is retried.
func (w *MPIBenchmarkWrapper) MaxRetries(n int32) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.MaxRetries = n
	return w
}

// StartTimeout sets timeouts.start.
func (w *MPIBenchmarkWrapper) StartTimeout(d time.Duration) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Timeouts.Start = duration(d)
	return w
}

// RunTimeout sets timeouts.run.
func (w *MPIBenchmarkWrapper) RunTimeout(d time.Duration) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Timeouts.Run = duration(d)
	return w
}

// Expectations adds expectations.
func (w *MPIBenchmarkWrapper) Expectations(es ...benchv1.Expectation) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Expectations = append(w.MPIBenchmark.Spec.Expectations, es...)
	return w
}

// Suite sets the suite (osu by default).
func (w *MPIBenchmarkWrapper) Suite(s benchv1.MPISuite) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Suite = s
	return w
}

// Tests sets the tests of the suite.
func (w *MPIBenchmarkWrapper) Tests(tests ...string) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Tests = tests
	return w
}

// IOR runs suite ior with settings (without messageSizes, which are OSU's
// and IMB's).
func (w *MPIBenchmarkWrapper) IOR(settings benchv1.IORSettings) *MPIBenchmarkWrapper {
	s := &w.MPIBenchmark.Spec
	s.Suite, s.IOR, s.MessageSizes = benchv1.SuiteIOR, &settings, nil
	return w
}

// Layout sets how many nodes and ranks per node, keeping the binding and
// hostNetwork.
func (w *MPIBenchmarkWrapper) Layout(nodes, ranksPerNode int32) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Layout.Nodes, w.MPIBenchmark.Spec.Layout.RanksPerNode = nodes, ranksPerNode
	return w
}

// CPUBinding binds the ranks by policy, to cpus with policy explicit.
func (w *MPIBenchmarkWrapper) CPUBinding(policy benchv1.CPUBindingPolicy, cpus ...int32) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Layout.CPUBinding = &benchv1.CPUBinding{Policy: policy, CPUs: cpus}
	return w
}

// HostNetwork runs the pods on the nodes' network.
func (w *MPIBenchmarkWrapper) HostNetwork() *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Layout.HostNetwork = true
	return w
}

// Implementation sets the MPI implementation.
func (w *MPIBenchmarkWrapper) Implementation(impl benchv1.MPIImplementation) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.MPI.Implementation = impl
	return w
}

// Image sets the image of the MPI pods.
func (w *MPIBenchmarkWrapper) Image(image string) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.MPI.Image = image
	return w
}

// Env adds an environment variable of the MPI run.
func (w *MPIBenchmarkWrapper) Env(name, value string) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.MPI.Env = append(w.MPIBenchmark.Spec.MPI.Env, benchv1.EnvVar{Name: name, Value: value})
	return w
}

// Resources sets the workers' resources.
func (w *MPIBenchmarkWrapper) Resources(r corev1.ResourceRequirements) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.MPI.Resources = r.DeepCopy()
	return w
}

// MessageSizes sets the message sizes, from min to max bytes.
func (w *MPIBenchmarkWrapper) MessageSizes(minBytes, maxBytes int64) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.MessageSizes = &benchv1.MessageSizes{Min: minBytes, Max: maxBytes}
	return w
}

// Iterations sets the iterations per message size.
func (w *MPIBenchmarkWrapper) Iterations(n int32) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.Iterations = &n
	return w
}

// WarmupIterations sets the iterations per message size that do not count.
func (w *MPIBenchmarkWrapper) WarmupIterations(n int32) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.WarmupIterations = &n
	return w
}

// ExtraArgs adds arguments of the benchmark program.
func (w *MPIBenchmarkWrapper) ExtraArgs(args ...string) *MPIBenchmarkWrapper {
	w.MPIBenchmark.Spec.MPI.ExtraArgs = append(w.MPIBenchmark.Spec.MPI.ExtraArgs, args...)
	return w
}

// State sets status.state.
func (w *MPIBenchmarkWrapper) State(s benchv1.BenchmarkState) *MPIBenchmarkWrapper {
	w.Status.State = s
	return w
}

// Conditions adds status conditions.
func (w *MPIBenchmarkWrapper) Conditions(cs ...metav1.Condition) *MPIBenchmarkWrapper {
	w.Status.Conditions = append(w.Status.Conditions, cs...)
	return w
}

// MachineType sets status.machineType.
func (w *MPIBenchmarkWrapper) MachineType(m string) *MPIBenchmarkWrapper {
	w.Status.MachineType = m
	return w
}

// StartTime sets status.startTime.
func (w *MPIBenchmarkWrapper) StartTime(t time.Time) *MPIBenchmarkWrapper {
	w.Status.StartTime = ptr.To(metav1.NewTime(t))
	return w
}

// CompletedRepetitions sets status.completedRepetitions.
func (w *MPIBenchmarkWrapper) CompletedRepetitions(n int32) *MPIBenchmarkWrapper {
	w.Status.CompletedRepetitions = n
	return w
}

// Summary sets status.summary.
func (w *MPIBenchmarkWrapper) Summary(s benchv1.MPISummary) *MPIBenchmarkWrapper {
	w.Status.Summary = s
	return w
}

// Results sets status.results.
func (w *MPIBenchmarkWrapper) Results(rs ...benchv1.MPITestResult) *MPIBenchmarkWrapper {
	w.Status.Results = rs
	return w
}

// NetworkBenchmarkWrapper builds a NetworkBenchmark.
type NetworkBenchmarkWrapper struct{ benchv1.NetworkBenchmark }

// MakeNetworkBenchmark is NetworkBenchmark ns/name with an empty spec.
func MakeNetworkBenchmark(name, ns string) *NetworkBenchmarkWrapper {
	return &NetworkBenchmarkWrapper{benchv1.NetworkBenchmark{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}}
}

// Obj returns a copy of the benchmark.
func (w *NetworkBenchmarkWrapper) Obj() *benchv1.NetworkBenchmark { return w.DeepCopy() }

// Clone returns a new wrapper of a copy of the benchmark.
func (w *NetworkBenchmarkWrapper) Clone() *NetworkBenchmarkWrapper {
	return &NetworkBenchmarkWrapper{*w.DeepCopy()}
}

// UID sets metadata.uid.
func (w *NetworkBenchmarkWrapper) UID(uid string) *NetworkBenchmarkWrapper {
	w.ObjectMeta.UID = types.UID(uid)
	return w
}

// Label adds a label.
func (w *NetworkBenchmarkWrapper) Label(k, v string) *NetworkBenchmarkWrapper {
	mergeLabels(&w.Labels, map[string]string{k: v})
	return w
}

// Spec replaces the whole spec with a copy of spec.
func (w *NetworkBenchmarkWrapper) Spec(spec benchv1.NetworkBenchmarkSpec) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec = *spec.DeepCopy()
	return w
}

// Pool places the benchmark on a BenchmarkPool (no nodeSelector).
func (w *NetworkBenchmarkWrapper) Pool(pool string) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.Pool, w.NetworkBenchmark.Spec.NodeSelector = benchv1.PoolName(pool), nil
	return w
}

// NodeSelector places the benchmark on nodes by label (no pool).
func (w *NetworkBenchmarkWrapper) NodeSelector(sel map[string]string) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.Pool, w.NetworkBenchmark.Spec.NodeSelector = "", sel
	return w
}

// Repetitions sets how many repetitions run, warm-ups included.
func (w *NetworkBenchmarkWrapper) Repetitions(n int32) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.Repetitions = n
	return w
}

// WarmupRepetitions sets how many of the first repetitions do not count.
func (w *NetworkBenchmarkWrapper) WarmupRepetitions(n int32) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.WarmupRepetitions = n
	return w
}

// Nodes sets how many nodes the pairs span.
func (w *NetworkBenchmarkWrapper) Nodes(n int32) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.Nodes = n
	return w
}

// HostNetwork runs the pods on the nodes' network.
func (w *NetworkBenchmarkWrapper) HostNetwork() *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.HostNetwork = true
	return w
}

// Image sets the image of the pods.
func (w *NetworkBenchmarkWrapper) Image(image string) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.Image = image
	return w
}

// ChipletPairs generates the pairs from the first CPU of chiplet from to
// each chiplet, in the scopes.
func (w *NetworkBenchmarkWrapper) ChipletPairs(from int32, scopes ...benchv1.NetworkScope) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.Pairs = benchv1.NetworkPairs{From: &benchv1.ChipletRef{Chiplet: from}, Scopes: scopes}
	return w
}

// Fabtests runs fabtests with settings (no iperf3).
func (w *NetworkBenchmarkWrapper) Fabtests(settings benchv1.FabtestsSettings) *NetworkBenchmarkWrapper {
	w.NetworkBenchmark.Spec.Fabtests, w.NetworkBenchmark.Spec.IPerf3 = &settings, nil
	return w
}
