package mpibenchmark

import (
	"encoding/json"
	"fmt"
	"strconv"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/mpi"
)

const (
	kind = "MPIBenchmark"

	stepsKey   = "steps.json"
	stepsDir   = "/etc/benchwright"
	stepsMount = "steps"
	dataDir    = "/data"
	dataVolume = "data"

	launcherContainer = "launcher"
	workerContainer   = "worker"

	// sshAuthMountPath is where the MPI Operator mounts the SSH keys: the home
	// of the images' mpiuser, as in the operator's own images.
	sshAuthMountPath = "/home/mpiuser/.ssh"
	// sshPort is where the images' sshd listens (the operator's images use
	// 2222 too, which leaves the node's 22 free under hostNetwork).
	sshPort = 2222
	// mpiUserID is the images' mpiuser (uid and gid 1000, as in the MPI
	// Operator's images). As mpiuser, sshd on 2222 and mpirun need no
	// capability: sshd run by a non-root user skips privilege separation
	// (no chroot, no setuid) and can only log in that same user.
	mpiUserID = 1000

	shmVolume = "dshm"
)

// workerArgv runs the SSH server the launcher's mpirun connects to, as the MPI
// Operator's images do.
var workerArgv = []string{"/usr/sbin/sshd", "-De", "-f", "/home/mpiuser/.sshd_config"}

// childLabels mark every object a benchmark owns.
func childLabels(b *benchv1.MPIBenchmark) map[string]string {
	return map[string]string{benchv1.BenchmarkLabel: children.LabelValue(b.Name), benchv1.KindLabel: kind}
}

// buildLaunch is what the launcher runs in each repetition.
func buildLaunch(b *benchv1.MPIBenchmark) (*mpi.Launch, error) {
	return mpi.BuildLaunch(&b.Spec, mpi.Options{IORDir: dataDir})
}

// stepsShrink says what makes the steps smaller.
const stepsShrink = "list fewer tests (spec.tests: each OSU test is an mpirun of its own), or shorten spec.mpi.env, spec.mpi.extraArgs or layout.cpuBinding.cpus: each mpirun repeats them"

// constructSteps is the launcher's steps as JSON, refused when too large for
// the launcher's annotation.
func constructSteps(l *mpi.Launch) (string, error) {
	steps, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return "", err
	}
	return string(steps), children.CheckInputSize("the launcher's steps", string(steps), stepsShrink)
}

// jobParams picks one MPIJob.
type jobParams struct {
	rep, attempt int
	image        string
	// steps is the launcher's steps (constructSteps), which it reads from its
	// annotation.
	steps string
	// nodeFactsImage runs the workers' node-facts step: the manager's
	// image; empty, none.
	nodeFactsImage string
}

// constructMPIJob is the MPIJob of one attempt of a repetition: one worker
// per node, the launcher started once every worker is ready, run once
// (backoffLimit 0): the controller decides what a failure means.
func constructMPIJob(b *benchv1.MPIBenchmark, l *mpi.Launch, p jobParams) *mpiv2.MPIJob {
	labels := childLabels(b)
	labels[benchv1.RepetitionLabel] = strconv.Itoa(p.rep)
	labels[attemptLabel] = strconv.Itoa(p.attempt)
	deadline := int64((startTimeout(b) + runTimeout(b)).Seconds())
	impl := mpiv2.MPIImplementation(b.Spec.MPI.ImplementationOrDefault())
	return &mpiv2.MPIJob{
		ObjectMeta: metav1.ObjectMeta{Name: mpiJobName(b.Name, p.rep, p.attempt), Namespace: b.Namespace, Labels: labels},
		Spec: mpiv2.MPIJobSpec{
			SlotsPerWorker:         ptr.To(b.Spec.Layout.RanksPerNodeOrDefault()),
			LauncherCreationPolicy: mpiv2.LauncherCreationPolicyWaitForWorkersReady,
			MPIImplementation:      impl,
			SSHAuthMountPath:       sshAuthMountPath,
			RunPolicy: mpiv2.RunPolicy{
				CleanPodPolicy: ptr.To(cleanPodPolicy(b, p.nodeFactsImage)),
				BackoffLimit:   ptr.To[int32](0),
				// A backstop for when the manager is down; the controller
				// enforces the start and run timeouts with a better message.
				ActiveDeadlineSeconds: &deadline,
			},
			MPIReplicaSpecs: map[mpiv2.MPIReplicaType]*mpiv2.ReplicaSpec{
				mpiv2.MPIReplicaTypeLauncher: {
					Replicas: ptr.To[int32](1), RestartPolicy: mpiv2.RestartPolicyNever,
					Template: launcherTemplate(b, l, labels, p.image, p.steps, p.nodeFactsImage),
				},
				mpiv2.MPIReplicaTypeWorker: {
					Replicas: ptr.To(b.Spec.Layout.Nodes), RestartPolicy: mpiv2.RestartPolicyNever,
					Template: workerTemplate(b, labels, p.image, p.nodeFactsImage),
				},
			},
		},
	}
}

// launcherTemplate runs `benchwright steps`: each mpirun of the repetition in
// order, without a shell, from the template's annotation, which a downward API
// volume puts at stepsDir (the MPI Operator copies the template's annotations
// to the launcher pod).
func launcherTemplate(b *benchv1.MPIBenchmark, l *mpi.Launch, labels map[string]string, image, steps, samplerImage string) corev1.PodTemplateSpec {
	var env []corev1.EnvVar
	for _, e := range l.Env {
		env = append(env, corev1.EnvVar{Name: e.Name, Value: e.Value})
	}
	spec := basePod(b)
	spec.Containers = []corev1.Container{{
		Name: launcherContainer, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"benchwright", "steps", stepsDir + "/" + stepsKey},
		Env:             env,
		VolumeMounts:    []corev1.VolumeMount{{Name: stepsMount, MountPath: stepsDir, ReadOnly: true}},
		SecurityContext: restrictedContainer(),
	}}
	spec.Volumes = []corev1.Volume{children.InputVolume(stepsMount, stepsKey, benchv1.MPIStepsAnnotation)}
	children.Monitor(&spec, samplerImage, b.Spec.Monitoring, nil)
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: withRole(labels, roleLauncher), Annotations: map[string]string{benchv1.MPIStepsAnnotation: steps}},
		Spec:       spec,
	}
}

// workerTemplate runs sshd on each of layout.nodes nodes, one worker per node.
func workerTemplate(b *benchv1.MPIBenchmark, labels map[string]string, image, nodeFactsImage string) corev1.PodTemplateSpec {
	spec := basePod(b)
	worker := corev1.Container{
		Name: workerContainer, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command: workerArgv[:1], Args: workerArgv[1:],
		SecurityContext: restrictedContainer(),
	}
	if r := b.Spec.MPI.Resources; r != nil {
		worker.Resources = *r.DeepCopy()
	}
	// Ready once sshd accepts connections: the launcher starts only then
	// (WaitForWorkersReady), so its first ssh does not race the server.
	worker.ReadinessProbe = &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(sshPort)}},
		PeriodSeconds: 2,
	}
	// Ranks on one node talk through shared memory in /dev/shm, which a
	// container caps at 64 MiB: large on-node messages would fail or slow.
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: shmVolume, VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory},
	}})
	worker.VolumeMounts = append(worker.VolumeMounts, corev1.VolumeMount{Name: shmVolume, MountPath: "/dev/shm"})
	if ior := b.Spec.IOR; ior != nil {
		src := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		if ior.ClaimName != "" {
			src = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ior.ClaimName}}
		}
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: dataVolume, VolumeSource: src})
		worker.VolumeMounts = append(worker.VolumeMounts, corev1.VolumeMount{Name: dataVolume, MountPath: dataDir})
	}
	spec.Containers = []corev1.Container{worker}
	if nodeFactsImage != "" {
		// The ranks' nodes are the workers': their facts are the run's.
		spec.InitContainers = []corev1.Container{children.NodeFactsStep(nodeFactsImage, b.Spec.Layout.HostNetwork, worker.Resources)}
	}
	children.Monitor(&spec, nodeFactsImage, b.Spec.Monitoring, worker.VolumeMounts)
	peers := withRole(labels, roleWorker)
	spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: peers},
			TopologyKey:   corev1.LabelHostname,
		}},
	}}
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: peers}, Spec: spec}
}

// basePod is what launcher and workers share: placement on the benchmark's
// nodes, the node's network when asked (and the admin allowed it), no API
// credentials, mpiuser whatever user the image names.
func basePod(b *benchv1.MPIBenchmark) corev1.PodSpec {
	spec := corev1.PodSpec{
		AutomountServiceAccountToken: ptr.To(false),
		EnableServiceLinks:           ptr.To(false),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](mpiUserID), RunAsGroup: ptr.To[int64](mpiUserID),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
	children.Place(&spec, b.Spec.Placement)
	if b.Spec.Layout.HostNetwork {
		spec.HostNetwork = true
		spec.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	}
	return spec
}

// restrictedContainer is the launcher's and the workers' container security:
// no capability, no privilege escalation. The image stays writable: sshd
// writes its pid file to mpiuser's home, mpirun its session directory to /tmp.
func restrictedContainer() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

func withRole(labels map[string]string, role string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	out[roleLabel] = role
	return out
}

// describeLayout is the Layout column: "2x1 core", "1x2 cpus 0,16".
func describeLayout(b *benchv1.MPIBenchmark) string {
	l := b.Spec.Layout
	binding := "core"
	if l.CPUBinding != nil {
		binding = string(l.CPUBinding.Policy)
		if l.CPUBinding.Policy == benchv1.BindExplicit {
			binding = "cpus " + joinInts(l.CPUBinding.CPUs)
		}
	}
	s := fmt.Sprintf("%dx%d %s", l.Nodes, l.RanksPerNodeOrDefault(), binding)
	if l.HostNetwork {
		s += " hostNetwork"
	}
	if len(s) > 64 {
		s = s[:61] + "..."
	}
	return s
}

func joinInts(v []int32) string {
	s := ""
	for i, c := range v {
		if i > 0 {
			s += ","
		}
		s += strconv.Itoa(int(c))
	}
	return s
}

// cleanPodPolicy keeps the workers after the launcher is done when they
// sample (spec.monitoring): their series is read first, then the MPIJob's
// policy becomes Running and the MPI Operator deletes them
// (Reconciler.releaseWorkers). Without samplers the operator deletes them at
// once.
func cleanPodPolicy(b *benchv1.MPIBenchmark, samplerImage string) mpiv2.CleanPodPolicy {
	if samplerImage != "" && b.Spec.Monitoring.On() {
		return mpiv2.CleanPodPolicyNone
	}
	return mpiv2.CleanPodPolicyRunning
}
