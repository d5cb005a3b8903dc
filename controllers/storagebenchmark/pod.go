package storagebenchmark

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
)

// constructPodSpec is the pod of one node slot: the volumes under test, the
// tool's steps, placement on the benchmark's nodes, and no credentials.
func constructPodSpec(b *benchv1.StorageBenchmark, p jobParams) (*corev1.PodSpec, error) {
	steps, err := toolSteps(b, p.image)
	if err != nil {
		return nil, err
	}
	volumes, mounts, devices := podVolumes(b, p.slot, p.hostPathPrefixes)
	dataMounts := slices.Clone(mounts)
	// The image is read-only: tools get a writable /tmp of their own.
	volumes = append(volumes, corev1.Volume{Name: tmpVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	mounts = append(mounts, corev1.VolumeMount{Name: tmpVolume, MountPath: "/tmp"})
	for i := range steps {
		steps[i].VolumeMounts = mounts
		steps[i].VolumeDevices = devices
	}
	if b.Spec.Fio != nil {
		volumes = append(volumes, children.InputVolume(jobFileMount, jobFileKey, benchv1.FioJobFileAnnotation))
		steps[0].VolumeMounts = append(steps[0].VolumeMounts, corev1.VolumeMount{Name: jobFileMount, MountPath: jobFileDir, ReadOnly: true})
	}
	var init []corev1.Container
	init = append(init, steps[:len(steps)-1]...)
	if b.Spec.DropCaches {
		// After dd's untimed preparation, which fills the cache, and right
		// before the first timed step.
		at := 0
		if len(init) > 0 && init[0].Name == ddPrepareContainer {
			at = 1
		}
		init = slices.Insert(init, at, dropCachesStep(p.dropCachesImage))
	}
	if p.nodeFactsImage != "" {
		// First: the facts as the repetition starts.
		init = slices.Insert(init, 0, children.NodeFactsStep(p.nodeFactsImage, false, steps[len(steps)-1].Resources))
	}

	spec := &corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		AutomountServiceAccountToken:  ptr.To(false),
		EnableServiceLinks:            ptr.To(false),
		InitContainers:                init,
		Containers:                    steps[len(steps)-1:],
		Volumes:                       volumes,
		SecurityContext:               podSecurity(b),
		TerminationGracePeriodSeconds: ptr.To[int64](10),
	}
	// The sampler runs from the first step to the last, and names the disks
	// behind the volumes under test.
	children.Monitor(spec, p.nodeFactsImage, b.Spec.Monitoring, dataMounts)
	placePod(spec, b, p)
	return spec, nil
}

// podVolumes are the volumes under test as pod volumes, with their mounts
// (Filesystem) or devices (Block). A host path is the admin's directory as
// the volume and the rest as the mount's subPath (splitHostPath).
func podVolumes(b *benchv1.StorageBenchmark, slot int, hostPathPrefixes []string) ([]corev1.Volume, []corev1.VolumeMount, []corev1.VolumeDevice) {
	v := b.Spec.Volumes
	var (
		volumes []corev1.Volume
		mounts  []corev1.VolumeMount
		devices []corev1.VolumeDevice
	)
	for i := range volumeCount(b) {
		name := "data" + strconv.Itoa(i)
		var (
			src     corev1.VolumeSource
			subPath string
		)
		switch {
		case v.EmptyDir != nil:
			src.EmptyDir = &corev1.EmptyDirVolumeSource{Medium: v.EmptyDir.Medium, SizeLimit: v.EmptyDir.SizeLimit}
		case v.HostPath != nil:
			// Directory: a missing admin directory fails the pod instead
			// of being created on the node. A missing subPath under it is
			// made by the kubelet with the directory's mode.
			var root string
			root, subPath = splitHostPath(v.HostPath.Paths[i], hostPathPrefixes)
			src.HostPath = &corev1.HostPathVolumeSource{Path: root, Type: ptr.To(corev1.HostPathDirectory)}
		default:
			src.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: pvcName(b.Name, slot, i, b.Spec.Nodes)}
		}
		volumes = append(volumes, corev1.Volume{Name: name, VolumeSource: src})
		if blockMode(b) {
			devices = append(devices, corev1.VolumeDevice{Name: name, DevicePath: blockDevice + strconv.Itoa(i)})
		} else {
			mounts = append(mounts, corev1.VolumeMount{Name: name, MountPath: dataDir + strconv.Itoa(i), SubPath: subPath})
		}
	}
	return volumes, mounts, devices
}

// podSecurity runs the tools as a non-root user where the volume lets one write:
// Filesystem claims and emptyDir, made writable through fsGroup. Raw devices and
// host paths are owned by root on the node, so there the tools run as root, but
// still without any capability.
func podSecurity(b *benchv1.StorageBenchmark) *corev1.PodSecurityContext {
	sc := &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	if blockMode(b) || b.Spec.Volumes.HostPath != nil {
		// Whatever user the image names, root owns these on the node.
		sc.RunAsUser, sc.RunAsGroup, sc.RunAsNonRoot = ptr.To[int64](0), ptr.To[int64](0), ptr.To(false)
		return sc
	}
	sc.RunAsNonRoot = ptr.To(true)
	sc.RunAsUser = ptr.To[int64](nonRootID)
	sc.RunAsGroup = ptr.To[int64](nonRootID)
	sc.FSGroup = ptr.To[int64](nonRootID)
	sc.FSGroupChangePolicy = ptr.To(corev1.FSGroupChangeOnRootMismatch)
	return sc
}

// restrictedContainer is the tools' container security: no privilege, no
// capability, a read-only image.
func restrictedContainer() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// dropCachesStep empties the node's page cache before the tool runs. Writing
// /proc/sys/vm/drop_caches needs a privileged root container: it is the only
// privileged part of a storage benchmark, only with dropCaches: true, and it
// runs the manager's own fio image, whatever image the spec names.
func dropCachesStep(image string) corev1.Container {
	return corev1.Container{
		Name: dropCachesContainer, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command: dropCachesArgv[:1], Args: dropCachesArgv[1:],
		SecurityContext: &corev1.SecurityContext{
			Privileged: ptr.To(true), RunAsUser: ptr.To[int64](0), RunAsNonRoot: ptr.To(false),
		},
	}
}

// placePod keeps the pod on the benchmark's nodes: the pool's label and taint,
// or the spec's selector and tolerations; with several nodes, one pod per node.
func placePod(spec *corev1.PodSpec, b *benchv1.StorageBenchmark, p jobParams) {
	children.Place(spec, b.Spec.Placement)
	if b.Spec.Nodes <= 1 {
		return
	}
	peers := childLabels(b)
	peers[benchv1.RepetitionLabel] = strconv.Itoa(p.rep)
	peers[attemptLabel] = strconv.Itoa(p.attempt)
	children.OneSlotPerNode(spec, peers)
}
