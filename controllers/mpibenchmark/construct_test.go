package mpibenchmark

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/crdbounds"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/test/wrappers"
)

// quantities compare by value (resource.Quantity has unexported fields).
var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

const testImage = "ghcr.io/benchwright/mpi-openmpi:v0.1.0"

// testSteps stand for the launcher's steps in a jobParams.
const testSteps = `{"steps": []}`

// latBench is an off-node osu_latency (2 nodes x 1 rank, OpenMPI) in pool
// c2d, 3 repetitions.
func latBench() *wrappers.MPIBenchmarkWrapper {
	return wrappers.MakeMPIBenchmark("lat", "hpc").UID("0b6f1c9e-uid").Pool("c2d").Repetitions(3).Tests("osu_latency").Layout(2, 1)
}

// iorBench is latBench writing and reading with IOR.
func iorBench(settings benchv1.IORSettings) *wrappers.MPIBenchmarkWrapper {
	return latBench().IOR(settings).Tests("write", "read")
}

func mustLaunch(t *testing.T, b *benchv1.MPIBenchmark) *mpi.Launch {
	t.Helper()
	l, err := buildLaunch(b)
	if err != nil {
		t.Fatalf("buildLaunch: %v", err)
	}
	return l
}

// wantJob is the whole MPIJob of latBench() for repetition 1, attempt 0.
func wantJob() *mpiv2.MPIJob {
	labels := func(role string) map[string]string {
		l := map[string]string{
			benchv1.BenchmarkLabel: "lat", benchv1.KindLabel: "MPIBenchmark",
			benchv1.RepetitionLabel: "1", attemptLabel: "0",
		}
		if role != "" {
			l[roleLabel] = role
		}
		return l
	}
	base := func() corev1.PodSpec {
		return corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false),
			EnableServiceLinks:           ptr.To(false),
			SecurityContext:              wantPodSecurity(),
			NodeSelector:                 map[string]string{"benchwright.io/pool": "c2d"},
			Tolerations: append([]corev1.Toleration{{
				Key: "benchwright.io/pool", Operator: corev1.TolerationOpEqual, Value: "c2d", Effect: corev1.TaintEffectNoSchedule,
			}}, children.NodeLostTolerations()...),
		}
	}
	launcher := base()
	launcher.Containers = []corev1.Container{{
		Name: "launcher", Image: testImage, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"benchwright", "steps", "/etc/benchwright/steps.json"},
		VolumeMounts:    []corev1.VolumeMount{{Name: "steps", MountPath: "/etc/benchwright", ReadOnly: true}},
		SecurityContext: wantContainerSecurity(),
	}}
	// The launcher reads its template's annotation where it read the
	// ConfigMap's key: its argv did not change.
	launcher.Volumes = []corev1.Volume{{Name: "steps", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
		Items: []corev1.DownwardAPIVolumeFile{{
			Path:     "steps.json",
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['benchwright.io/mpi-steps']"},
		}},
	}}}}
	worker := base()
	worker.Containers = []corev1.Container{{
		Name: "worker", Image: testImage, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:      []string{"/usr/sbin/sshd"},
		Args:         []string{"-De", "-f", "/home/mpiuser/.sshd_config"},
		VolumeMounts: []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}},
		// Ready when sshd accepts connections, so the launcher's first ssh
		// does not race it.
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(2222)}},
			PeriodSeconds: 2,
		},
		SecurityContext: wantContainerSecurity(),
	}}
	// /dev/shm in memory, not the container's 64 MiB.
	worker.Volumes = []corev1.Volume{{Name: "dshm", VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory},
	}}}
	worker.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: labels("worker")},
			TopologyKey:   "kubernetes.io/hostname",
		}},
	}}
	return &mpiv2.MPIJob{
		ObjectMeta: metav1.ObjectMeta{Name: "lat-r1", Namespace: "hpc", Labels: labels("")},
		Spec: mpiv2.MPIJobSpec{
			SlotsPerWorker:         ptr.To[int32](1),
			LauncherCreationPolicy: mpiv2.LauncherCreationPolicyWaitForWorkersReady,
			MPIImplementation:      mpiv2.MPIImplementationOpenMPI,
			SSHAuthMountPath:       "/home/mpiuser/.ssh",
			RunPolicy: mpiv2.RunPolicy{
				CleanPodPolicy:        ptr.To(mpiv2.CleanPodPolicyRunning),
				BackoffLimit:          ptr.To[int32](0),
				ActiveDeadlineSeconds: ptr.To[int64](15*60 + 2*3600),
			},
			MPIReplicaSpecs: map[mpiv2.MPIReplicaType]*mpiv2.ReplicaSpec{
				mpiv2.MPIReplicaTypeLauncher: {
					Replicas: ptr.To[int32](1), RestartPolicy: mpiv2.RestartPolicyNever,
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels("launcher"), Annotations: map[string]string{"benchwright.io/mpi-steps": testSteps}},
						Spec:       launcher,
					},
				},
				mpiv2.MPIReplicaTypeWorker: {
					Replicas: ptr.To[int32](2), RestartPolicy: mpiv2.RestartPolicyNever,
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels("worker")}, Spec: worker},
				},
			},
		},
	}
}

// wantPodSecurity: both roles run as the images' mpiuser (1000:1000), never
// root, under the runtime's seccomp profile.
func wantPodSecurity() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](1000),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// wantContainerSecurity: no capability (sshd as mpiuser on 2222 needs none),
// no privilege escalation.
func wantContainerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

func launcherSpec(j *mpiv2.MPIJob) *corev1.PodSpec {
	return &j.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeLauncher].Template.Spec
}

func workerSpec(j *mpiv2.MPIJob) *corev1.PodSpec {
	return &j.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker].Template.Spec
}

// bothPods applies f to the launcher's and the workers' pod specs.
func bothPods(j *mpiv2.MPIJob, f func(*corev1.PodSpec)) {
	f(launcherSpec(j))
	f(workerSpec(j))
}

// setRepAttempt relabels every object of the want for another repetition
// and attempt.
func setRepAttempt(j *mpiv2.MPIJob, name, rep, attempt string) {
	j.Name = name
	maps := []map[string]string{
		j.Labels,
		j.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeLauncher].Template.Labels,
		j.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker].Template.Labels,
		workerSpec(j).Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchLabels,
	}
	for _, m := range maps {
		m[benchv1.RepetitionLabel], m[attemptLabel] = rep, attempt
	}
}

func TestConstructMPIJob(t *testing.T) {
	gpuToleration := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	resources := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100"), corev1.ResourceMemory: resource.MustParse("400Gi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("400Gi")},
	}
	tests := []struct {
		name   string
		bench  *wrappers.MPIBenchmarkWrapper // default: latBench()
		params *jobParams                    // default: repetition 1, attempt 0
		want   func(*mpiv2.MPIJob)           // edits wantJob()
	}{
		{
			name: "defaults: OpenMPI in a pool, one worker per node",
			want: func(*mpiv2.MPIJob) {},
		},
		{
			name:   "first attempt of repetition 0",
			params: &jobParams{rep: 0},
			want:   func(j *mpiv2.MPIJob) { setRepAttempt(j, "lat-r0", "0", "0") },
		},
		{
			name:   "a retry is a new MPIJob with its own name and labels",
			params: &jobParams{rep: 2, attempt: 1},
			want:   func(j *mpiv2.MPIJob) { setRepAttempt(j, "lat-r2-a1", "2", "1") },
		},
		{
			name:  "slotsPerWorker is ranksPerNode, workers are layout.nodes",
			bench: latBench().Tests("osu_allreduce").Layout(8, 56),
			want: func(j *mpiv2.MPIJob) {
				j.Spec.SlotsPerWorker = ptr.To[int32](56)
				j.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker].Replicas = ptr.To[int32](8)
			},
		},
		{
			name:  "activeDeadlineSeconds is the start plus the run timeout",
			bench: latBench().StartTimeout(5 * time.Minute).RunTimeout(30 * time.Minute),
			want:  func(j *mpiv2.MPIJob) { j.Spec.RunPolicy.ActiveDeadlineSeconds = ptr.To[int64](2100) },
		},
		{
			name:  "zero timeouts fall back to the defaults",
			bench: latBench().StartTimeout(0).RunTimeout(10 * time.Minute),
			want:  func(j *mpiv2.MPIJob) { j.Spec.RunPolicy.ActiveDeadlineSeconds = ptr.To[int64](900 + 600) },
		},
		{
			name:  "MPICH: the launcher carries the environment -envlist forwards",
			bench: latBench().Implementation(benchv1.MPICH).Env("FI_PROVIDER", "tcp").Env("MPIR_CVAR_ENABLE_GPU", "0"),
			want: func(j *mpiv2.MPIJob) {
				j.Spec.MPIImplementation = mpiv2.MPIImplementationMPICH
				launcherSpec(j).Containers[0].Env = []corev1.EnvVar{{Name: "FI_PROVIDER", Value: "tcp"}, {Name: "MPIR_CVAR_ENABLE_GPU", Value: "0"}, {Name: "UCX_NET_DEVICES", Value: "eth0"}}
			},
		},
		{
			name:  "Intel MPI: the environment goes on the command line, not the launcher",
			bench: latBench().Implementation(benchv1.IntelMPI).Env("I_MPI_FABRICS", "shm:ofi"),
			want:  func(j *mpiv2.MPIJob) { j.Spec.MPIImplementation = mpiv2.MPIImplementationIntel },
		},
		{
			name:  "explicit OpenMPI keeps OpenMPI, its env on the command line",
			bench: latBench().Implementation(benchv1.OpenMPI).Env("UCX_TLS", "tcp"),
			want:  func(*mpiv2.MPIJob) {},
		},
		{
			name: "nodeSelector placement with tolerations, no pool",
			bench: latBench().NodeSelector(map[string]string{"cloud.google.com/gke-nodepool": "hpc", "cloud.google.com/compact-placement-group": "p1"}).
				Tolerations(gpuToleration),
			want: func(j *mpiv2.MPIJob) {
				bothPods(j, func(s *corev1.PodSpec) {
					s.NodeSelector = map[string]string{"cloud.google.com/gke-nodepool": "hpc", "cloud.google.com/compact-placement-group": "p1"}
					s.Tolerations = append([]corev1.Toleration{gpuToleration}, children.NodeLostTolerations()...)
				})
			},
		},
		{
			name:  "pool tolerations come first, the spec's are added",
			bench: latBench().Tolerations(gpuToleration),
			want: func(j *mpiv2.MPIJob) {
				bothPods(j, func(s *corev1.PodSpec) {
					s.Tolerations = append([]corev1.Toleration{s.Tolerations[0], gpuToleration}, children.NodeLostTolerations()...)
				})
			},
		},
		{
			name:  "hostNetwork resolves cluster names with ClusterFirstWithHostNet",
			bench: latBench().HostNetwork(),
			want: func(j *mpiv2.MPIJob) {
				bothPods(j, func(s *corev1.PodSpec) {
					s.HostNetwork = true
					s.DNSPolicy = corev1.DNSClusterFirstWithHostNet
				})
			},
		},
		{
			name:  "resources go on the worker container only",
			bench: latBench().Resources(resources),
			want:  func(j *mpiv2.MPIJob) { workerSpec(j).Containers[0].Resources = resources },
		},
		{
			name:  "IOR without a claim writes to an emptyDir at /data on each worker",
			bench: iorBench(benchv1.IORSettings{TransferSize: "1m", BlockSize: "16m"}),
			want: func(j *mpiv2.MPIJob) {
				w := workerSpec(j)
				w.Volumes = append(w.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
				w.Containers[0].VolumeMounts = append(w.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/data"})
			},
		},
		{
			name:  "IOR with a claim mounts it at /data on each worker",
			bench: iorBench(benchv1.IORSettings{TransferSize: "1m", BlockSize: "16m", ClaimName: "scratch-rwx"}),
			want: func(j *mpiv2.MPIJob) {
				w := workerSpec(j)
				w.Volumes = append(w.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "scratch-rwx"},
				}})
				w.Containers[0].VolumeMounts = append(w.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/data"})
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.bench == nil {
				tt.bench = latBench()
			}
			b := tt.bench.Obj()
			params := jobParams{rep: 1}
			if tt.params != nil {
				params = *tt.params
			}
			params.image, params.steps = testImage, testSteps
			want := wantJob()
			tt.want(want)
			got := constructMPIJob(b, mustLaunch(t, b), params)
			if diff := cmp.Diff(want, got, quantities); diff != "" {
				t.Errorf("constructMPIJob (-want +got):\n%s", diff)
			}
		})
	}
}

// Whatever the spec, both roles' pods run as mpiuser without capabilities or
// privilege escalation; only hostNetwork (which the controller lets through
// only when the admin allows it) changes the pods' namespaces.
func TestConstructMPIJobSecurity(t *testing.T) {
	type podSecurity struct {
		Pod                           *corev1.PodSecurityContext
		Containers                    []*corev1.SecurityContext
		HostNetwork, HostPID, HostIPC bool
	}
	restricted := func(hostNetwork bool) podSecurity {
		return podSecurity{Pod: wantPodSecurity(), Containers: []*corev1.SecurityContext{wantContainerSecurity()}, HostNetwork: hostNetwork}
	}
	tests := []struct {
		name  string
		bench *wrappers.MPIBenchmarkWrapper
		want  podSecurity // of the launcher and of the workers
	}{
		{"defaults", latBench(), restricted(false)},
		{"an image of the user's, which may name root", latBench().Image("mpioperator/openmpi:latest"), restricted(false)},
		{"MPICH", latBench().Implementation(benchv1.MPICH), restricted(false)},
		{"Intel MPI", latBench().Implementation(benchv1.IntelMPI), restricted(false)},
		{"IOR on a claim", iorBench(benchv1.IORSettings{TransferSize: "1m", BlockSize: "16m", ClaimName: "scratch"}), restricted(false)},
		{"hostNetwork", latBench().HostNetwork(), restricted(true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.bench.Obj()
			job := constructMPIJob(b, mustLaunch(t, b), jobParams{image: testImage})
			for role, spec := range map[string]*corev1.PodSpec{"launcher": launcherSpec(job), "worker": workerSpec(job)} {
				got := podSecurity{Pod: spec.SecurityContext, HostNetwork: spec.HostNetwork, HostPID: spec.HostPID, HostIPC: spec.HostIPC}
				for _, c := range append(spec.InitContainers, spec.Containers...) {
					got.Containers = append(got.Containers, c.SecurityContext)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s security (-want +got):\n%s", role, diff)
				}
			}
		})
	}
}

// A rank count of 0 (an object written before defaulting) still gives one
// slot per worker.
func TestConstructMPIJobSlotsAtLeastOne(t *testing.T) {
	b := latBench().Layout(2, 0).Obj()
	got := constructMPIJob(b, &mpi.Launch{}, jobParams{image: testImage}).Spec.SlotsPerWorker
	if diff := cmp.Diff(ptr.To[int32](1), got); diff != "" {
		t.Errorf("slotsPerWorker (-want +got):\n%s", diff)
	}
}

// The pods' nodeSelector is the benchmark's, copied: a change to one pod's
// selector reaches neither the other pod nor the benchmark.
func TestConstructMPIJobNodeSelectorNotAliased(t *testing.T) {
	b := latBench().NodeSelector(map[string]string{"cloud.google.com/gke-nodepool": "hpc"}).Obj()
	job := constructMPIJob(b, mustLaunch(t, b), jobParams{image: testImage})
	launcherSpec(job).NodeSelector["injected"] = "launcher"
	workerSpec(job).NodeSelector["injected"] = "worker"
	if diff := cmp.Diff(map[string]string{"cloud.google.com/gke-nodepool": "hpc"}, b.Spec.NodeSelector); diff != "" {
		t.Errorf("benchmark nodeSelector changed (-want +got):\n%s", diff)
	}
	if got := launcherSpec(job).NodeSelector["injected"]; got != "launcher" {
		t.Errorf("launcher nodeSelector shares the worker's map: injected=%q", got)
	}
}

// The worker's resources are the benchmark's, copied like the nodeSelector:
// a change to the MPIJob's must not reach the benchmark.
func TestConstructMPIJobResourcesNotAliased(t *testing.T) {
	b := latBench().Resources(corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}}).Obj()
	job := constructMPIJob(b, mustLaunch(t, b), jobParams{image: testImage})
	workerSpec(job).Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("1Gi")
	want := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}
	if diff := cmp.Diff(want, b.Spec.MPI.Resources.Requests, quantities); diff != "" {
		t.Errorf("benchmark resources changed through the MPIJob (-want +got):\n%s", diff)
	}
}

// The constructor is pure: the same inputs give the same object.
func TestConstructMPIJobDeterministic(t *testing.T) {
	b := latBench().Implementation(benchv1.MPICH).Obj()
	l := mustLaunch(t, b)
	p := jobParams{rep: 1, attempt: 2, image: testImage}
	if diff := cmp.Diff(constructMPIJob(b, l, p), constructMPIJob(b, l, p)); diff != "" {
		t.Errorf("two calls differ (-first +second):\n%s", diff)
	}
}

func TestConstructSteps(t *testing.T) {
	b := latBench().Tests("osu_latency", "osu_bw").Implementation(benchv1.MPICH).Env("FI_PROVIDER", "tcp").Obj()
	l := mustLaunch(t, b)
	steps, err := constructSteps(l)
	if err != nil {
		t.Fatalf("constructSteps: %v", err)
	}
	// The launcher's template carries them, and nothing else does.
	job := constructMPIJob(b, l, jobParams{image: testImage, steps: steps})
	if diff := cmp.Diff(map[string]string{"benchwright.io/mpi-steps": steps}, job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeLauncher].Template.Annotations); diff != "" {
		t.Errorf("launcher annotations (-want +got):\n%s", diff)
	}
	if a := job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker].Template.Annotations; a != nil || job.Annotations != nil {
		t.Errorf("worker template annotations %v, MPIJob annotations %v", a, job.Annotations)
	}
	// steps.json is the Launch as indented JSON, which the launcher reads.
	indented, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(indented), steps); diff != "" {
		t.Errorf("steps.json is not the indented Launch (-want +got):\n%s", diff)
	}
	// The fields `benchwright steps` runs, as written.
	type step struct {
		Tests []string `json:"tests"`
		Argv  []string `json:"argv"`
	}
	var doc struct {
		Steps []step           `json:"steps"`
		Env   []benchv1.EnvVar `json:"env"`
	}
	if err := json.Unmarshal([]byte(steps), &doc); err != nil {
		t.Fatalf("steps.json: %v", err)
	}
	prefix := []string{"mpirun", "-n", "2", "-ppn", "1", "-bind-to", "core", "-envlist", "FI_PROVIDER,UCX_NET_DEVICES"}
	wantSteps := []step{
		{Tests: []string{"osu_latency"}, Argv: append(slices.Clone(prefix), "osu_latency")},
		{Tests: []string{"osu_bw"}, Argv: append(slices.Clone(prefix), "osu_bw")},
	}
	if diff := cmp.Diff(wantSteps, doc.Steps); diff != "" {
		t.Errorf("steps.json steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]benchv1.EnvVar{{Name: "FI_PROVIDER", Value: "tcp"}, {Name: "UCX_NET_DEVICES", Value: "eth0"}}, doc.Env); diff != "" {
		t.Errorf("steps.json env (-want +got):\n%s", diff)
	}
	// What the launcher reads back is the Launch it was given.
	var back mpi.Launch
	if err := json.Unmarshal([]byte(steps), &back); err != nil {
		t.Fatalf("steps.json: %v", err)
	}
	if diff := cmp.Diff(*l, back); diff != "" {
		t.Errorf("steps.json round trip (-launch +read back):\n%s", diff)
	}
}

// A spec at the CRD's bounds (every OSU test, every variable and extra
// argument at their longest) makes steps far over the bound: refused with
// what to shrink. A usual one passes.
func TestConstructStepsRefusesTooLarge(t *testing.T) {
	bound := func(get func(string, string) (int, error), path string) int {
		n, err := get(kind, path)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	maxEnv, maxName, maxValue := bound(crdbounds.MaxItems, "spec.mpi.env"), bound(crdbounds.MaxLength, "spec.mpi.env[].name"), bound(crdbounds.MaxLength, "spec.mpi.env[].value")
	maxArgs, maxArg := bound(crdbounds.MaxItems, "spec.mpi.extraArgs"), bound(crdbounds.MaxLength, "spec.mpi.extraArgs[]")
	// Every OSU test the CRD allows (spec.tests is a set of them), each its
	// own mpirun.
	tests := []string{"osu_latency", "osu_bw", "osu_bibw", "osu_latency_mt", "osu_multi_lat", "osu_mbw_mr", "osu_allreduce", "osu_allgather", "osu_allgatherv",
		"osu_alltoall", "osu_alltoallv", "osu_barrier", "osu_bcast", "osu_gather", "osu_gatherv", "osu_reduce", "osu_reduce_scatter", "osu_scatter", "osu_scatterv"}
	w := latBench().Tests(tests...)
	for i := range maxEnv {
		name := fmt.Sprintf("V%d_", i)
		w.Env(name+strings.Repeat("N", maxName-len(name)), strings.Repeat("v", maxValue))
	}
	b := w.Obj()
	for range maxArgs {
		b.Spec.MPI.ExtraArgs = append(b.Spec.MPI.ExtraArgs, strings.Repeat("a", maxArg))
	}
	steps, err := constructSteps(mustLaunch(t, b))
	if err == nil || !strings.Contains(err.Error(), "over the 128 KiB") || !strings.Contains(err.Error(), "spec.tests") || !strings.Contains(err.Error(), "spec.mpi.env") {
		t.Errorf("steps of %d KiB: %v", len(steps)/1024, err)
	}
	t.Logf("the largest steps: %d KiB", len(steps)/1024)
	// Every OSU test, each with 8 variables of 64 characters: well within.
	w = latBench().Tests(tests...)
	for i := range 8 {
		w.Env(fmt.Sprintf("V%d", i), strings.Repeat("v", 64))
	}
	if steps, err := constructSteps(mustLaunch(t, w.Obj())); err != nil {
		t.Errorf("steps of %d KiB: %v", len(steps)/1024, err)
	}
}

func TestDescribeLayout(t *testing.T) {
	var cpus64 []int32
	for i := range int32(64) {
		cpus64 = append(cpus64, i)
	}
	tests := []struct {
		name   string
		layout benchv1.MPILayout
		want   string
	}{
		{"default binding is core", benchv1.MPILayout{Nodes: 2, RanksPerNode: 1}, "2x1 core"},
		{"ranksPerNode 0 counts as 1", benchv1.MPILayout{Nodes: 4}, "4x1 core"},
		{"socket", benchv1.MPILayout{Nodes: 8, RanksPerNode: 56, CPUBinding: &benchv1.CPUBinding{Policy: benchv1.BindSocket}}, "8x56 socket"},
		{"none", benchv1.MPILayout{Nodes: 1, RanksPerNode: 2, CPUBinding: &benchv1.CPUBinding{Policy: benchv1.BindNone}}, "1x2 none"},
		{"explicit lists the CPUs", benchv1.MPILayout{Nodes: 1, RanksPerNode: 2, CPUBinding: &benchv1.CPUBinding{Policy: benchv1.BindExplicit, CPUs: []int32{0, 16}}}, "1x2 cpus 0,16"},
		{"hostNetwork", benchv1.MPILayout{Nodes: 2, RanksPerNode: 1, HostNetwork: true}, "2x1 core hostNetwork"},
		{"long CPU lists are cut to 64 characters",
			benchv1.MPILayout{Nodes: 1, RanksPerNode: 64, CPUBinding: &benchv1.CPUBinding{Policy: benchv1.BindExplicit, CPUs: cpus64}, HostNetwork: true},
			"1x64 cpus 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,2..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := latBench().Obj()
			b.Spec.Layout = tt.layout
			got := describeLayout(b)
			if got != tt.want {
				t.Errorf("describeLayout = %q, want %q", got, tt.want)
			}
			if len(got) > 64 {
				t.Errorf("describeLayout is %d characters, the CRD allows 64", len(got))
			}
		})
	}
}

func TestChildNames(t *testing.T) {
	// 64 characters: too long for any child name as it is.
	const long = "osu-latency-c2d-standard-112-compact-placement-hostnetwork-tier1"
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"repetition 0", mpiJobName("lat", 0, 0), "lat-r0"},
		{"attempt 0 has no attempt suffix", mpiJobName("lat", 12, 0), "lat-r12"},
		{"a retry", mpiJobName("lat", 3, 2), "lat-r3-a2"},
		// 51 characters: room for the worker hostnames "<mpijob>-worker-1023".
		{"long name, repetition", mpiJobName(long, 0, 0), "osu-latency-c2d-standard-112-compact-pl-42664066-r0"},
		{"long name, retry", mpiJobName(long, 12, 3), "osu-latency-c2d-standard-112-compac-42664066-r12-a3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
			if len(tt.got) > 52 {
				t.Errorf("%q is %d characters, more than 52", tt.got, len(tt.got))
			}
			if errs := validation.IsDNS1123Label(tt.got); len(errs) > 0 {
				t.Errorf("%q is not a DNS label: %v", tt.got, errs)
			}
		})
	}
}

// The MPI Operator names the launcher "<mpijob>-launcher" and worker i
// "<mpijob>-worker-<i>" and uses those as the pods' hostnames, which must be
// DNS labels (63 characters), for every worker index up to layout.nodes-1
// (at most 1023).
func TestMPIJobNameLeavesRoomForPodHostnames(t *testing.T) {
	name := mpiJobName(strings.Repeat("a", 253), 99, 9)
	if errs := validation.IsDNS1123Label(name + "-launcher"); len(errs) > 0 {
		t.Errorf("launcher hostname %q: %v", name+"-launcher", errs)
	}
	if errs := validation.IsDNS1123Label(name + "-worker-999"); len(errs) > 0 {
		t.Errorf("worker hostname %q: %v", name+"-worker-999", errs)
	}
}

func TestMPIJobNameLeavesRoomForWorker1023(t *testing.T) {
	name := mpiJobName(strings.Repeat("a", 253), 0, 0)
	if errs := validation.IsDNS1123Label(name + "-worker-1023"); len(errs) > 0 {
		t.Errorf("worker hostname %q: %v", name+"-worker-1023", errs)
	}
}

// Each worker starts with the sampler and the node-facts step of the
// manager's image (the ranks' nodes are the workers'); the launcher has the
// sampler only. Workers that sample are kept after the launcher is done
// (cleanPodPolicy None) until their series is read.
func TestConstructMPIJobNodeFacts(t *testing.T) {
	b := latBench().Obj()
	for _, host := range []bool{false, true} {
		b.Spec.Layout.HostNetwork = host
		job := constructMPIJob(b, mustLaunch(t, b), jobParams{image: testImage, nodeFactsImage: "manager:v1"})
		w := job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker].Template.Spec
		want := []corev1.Container{
			children.SamplerSidecar("manager:v1", b.Spec.Monitoring, nil),
			children.NodeFactsStep("manager:v1", host, w.Containers[0].Resources),
		}
		if diff := cmp.Diff(want, w.InitContainers); diff != "" {
			t.Errorf("hostNetwork %v: worker init containers (-want +got):\n%s", host, diff)
		}
		l := job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeLauncher].Template.Spec
		if diff := cmp.Diff(want[:1], l.InitContainers); diff != "" {
			t.Errorf("launcher init containers (-want +got):\n%s", diff)
		}
		if *job.Spec.RunPolicy.CleanPodPolicy != mpiv2.CleanPodPolicyNone || !*w.ShareProcessNamespace || !*l.ShareProcessNamespace {
			t.Errorf("cleanPodPolicy %s, shared process namespaces %v %v: want None and shared", *job.Spec.RunPolicy.CleanPodPolicy, *w.ShareProcessNamespace, *l.ShareProcessNamespace)
		}
	}
	b.Spec.Monitoring.Enabled = ptr.To(false)
	job := constructMPIJob(b, mustLaunch(t, b), jobParams{image: testImage, nodeFactsImage: "manager:v1"})
	if w := job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker].Template.Spec; len(w.InitContainers) != 1 || *job.Spec.RunPolicy.CleanPodPolicy != mpiv2.CleanPodPolicyRunning {
		t.Errorf("monitoring off: worker init containers %d, cleanPodPolicy %s; want node-facts only, Running", len(w.InitContainers), *job.Spec.RunPolicy.CleanPodPolicy)
	}
}

func TestKeptFacts(t *testing.T) {
	job := &mpiv2.MPIJob{}
	if f, err := keptFacts(job); f != nil || err != nil {
		t.Errorf("no annotation: %v, %v", f, err)
	}
	job.Annotations = map[string]string{nodeFactsAnnotation: `{"gke-a": {"cpu_mhz": 3100, "read": "2026-01-01T00:00:00Z"}}`}
	if f, err := keptFacts(job); err != nil || f["gke-a"].CPUMHz != 3100 {
		t.Errorf("kept facts %v, %v", f, err)
	}
	job.Annotations[nodeFactsAnnotation] = "{"
	if _, err := keptFacts(job); err == nil {
		t.Error("a broken annotation read as facts")
	}
}
