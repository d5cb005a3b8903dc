package children

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// SamplerContainer is the sampler sidecar of every benchmark pod
// (spec.monitoring): it prints what the node does, every interval, for as
// long as the pod's tool runs.
const SamplerContainer = "sampler"

// SamplerResources are the sampler's requests and limits, equal so that a
// Guaranteed pod stays Guaranteed. A fraction of a CPU keeps it on the
// node's shared CPUs, off the cores the static CPU manager gives the tool.
// They add to the pod's requests: a pod sized to a node's allocatable
// leaves them room. The memory is mostly the binary's own pages (about
// 100 MiB of file-backed RSS, 12 MiB anonymous); the CPU it uses is about
// 0.3 % of a core at 1 s.
var SamplerResources = corev1.ResourceRequirements{
	Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
}

// SamplerSidecar is the sampler: a native sidecar (an init container that
// restarts Always, which the kubelet starts before the pod's other
// containers and stops after them) running the benchwright binary of the
// manager's image with a fixed argv, unprivileged like the node-facts step.
// mounts are the tool's volume mounts: the sampler mounts them read-only to
// name the disks behind them. The pod shares its process namespace
// (Monitor), so the sampler reads the tool's processes.
func SamplerSidecar(image string, m benchv1.Monitoring, mounts []corev1.VolumeMount) corev1.Container {
	args := []string{"sample", "--procs", "--interval=" + m.IntervalOrDefault().String()}
	var ro []corev1.VolumeMount
	for _, vm := range mounts {
		if vm.MountPath == "/dev/shm" {
			continue
		}
		args = append(args, "--volume="+vm.MountPath)
		ro = append(ro, corev1.VolumeMount{Name: vm.Name, MountPath: vm.MountPath, SubPath: vm.SubPath, ReadOnly: true})
	}
	return corev1.Container{
		Name: SamplerContainer, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:       []string{"/benchwright"},
		Args:          args,
		RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
		// One thread runs Go code: the sampler's work is one reading at a
		// time, and fewer threads wake beside the benchmark's.
		Env:             []corev1.EnvVar{{Name: "GOMAXPROCS", Value: "1"}},
		Resources:       *SamplerResources.DeepCopy(),
		VolumeMounts:    ro,
		SecurityContext: managerStepSecurity(),
	}
}

// Monitor adds the sampler to a pod spec as its first init container, so
// that it samples every step after it, and shares the pod's process
// namespace. Nothing changes when monitoring is off or image is empty.
func Monitor(spec *corev1.PodSpec, image string, m benchv1.Monitoring, mounts []corev1.VolumeMount) {
	if image == "" || !m.On() {
		return
	}
	spec.InitContainers = slices.Insert(spec.InitContainers, 0, SamplerSidecar(image, m, mounts))
	spec.ShareProcessNamespace = ptr.To(true)
}

// HasSampler tells whether a pod has the sampler sidecar.
func HasSampler(pod *corev1.Pod) bool {
	return slices.ContainsFunc(pod.Spec.InitContainers, func(c corev1.Container) bool { return c.Name == SamplerContainer })
}
