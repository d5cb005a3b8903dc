package storagebenchmark

import (
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/fio"
)

const (
	kind = "StorageBenchmark"

	jobFileKey   = "job.fio"
	jobFileDir   = "/etc/benchwright"
	jobFileMount = "job-file"
	tmpVolume    = "tmp"

	// dataDir and blockDevice are where volume i appears in the pod.
	dataDir     = "/data/"
	blockDevice = "/dev/bw"

	// Container names besides the dd tests' own.
	fioContainer        = "fio"
	dropCachesContainer = "drop-caches"
	ddPrepareContainer  = "dd-prepare"

	// nonRootID runs the tools when the volume lets a non-root user write
	// (Filesystem claims and emptyDir, made group-writable through fsGroup).
	nonRootID = 65532
)

// dropCachesArgv is a fixed command: nothing from the spec reaches a shell.
var dropCachesArgv = []string{"/bin/sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches"}

// childLabels mark every object a benchmark owns. Ownership itself is decided
// by the controller reference: a shortened name may be shared.
func childLabels(b *benchv1.StorageBenchmark) map[string]string {
	return map[string]string{benchv1.BenchmarkLabel: children.LabelValue(b.Name), benchv1.KindLabel: kind}
}

// blockMode tells whether the volumes are raw block devices.
func blockMode(b *benchv1.StorageBenchmark) bool {
	v := b.Spec.Volumes
	return v.Size != nil && v.VolumeMode != nil && *v.VolumeMode == corev1.PersistentVolumeBlock
}

// volumeCount is how many volumes each pod gets.
func volumeCount(b *benchv1.StorageBenchmark) int {
	switch v := b.Spec.Volumes; {
	case v.HostPath != nil:
		return len(v.HostPath.Paths)
	case v.EmptyDir != nil:
		return 1
	}
	return int(b.Spec.Volumes.CountOrDefault())
}

// targets are the paths fio and dd see: /data/i or /dev/bwi.
func targets(b *benchv1.StorageBenchmark) fio.Targets {
	var t fio.Targets
	for i := range volumeCount(b) {
		if blockMode(b) {
			t.Devices = append(t.Devices, blockDevice+strconv.Itoa(i))
		} else {
			t.Dirs = append(t.Dirs, dataDir+strconv.Itoa(i))
		}
	}
	return t
}

// constructJobFile is the fio job file every pod of the benchmark runs.
func constructJobFile(b *benchv1.StorageBenchmark) (string, error) {
	jobs, err := fio.Expand(b.Spec.Fio)
	if err != nil {
		return "", err
	}
	return fio.JobFile(jobs, targets(b))
}

// jobFileShrink says what makes the job file smaller.
const jobFileShrink = "list fewer or shorter-named jobs in spec.fio.jobs, or use fewer volumes (spec.volumes.count): each job names a file on every volume"

// checkJobFile refuses a job file too large for the pod's annotation.
func checkJobFile(jobFile string) error {
	return children.CheckInputSize("the fio job file", jobFile, jobFileShrink)
}

// constructPVCs are the persistent disks of every node slot (none for emptyDir
// and hostPath). They live as long as the benchmark: repetitions reuse them.
func constructPVCs(b *benchv1.StorageBenchmark) []*corev1.PersistentVolumeClaim {
	v := b.Spec.Volumes
	if v.Size == nil {
		return nil
	}
	mode := v.AccessMode
	if mode == "" {
		mode = corev1.ReadWriteOnce
	}
	var pvcs []*corev1.PersistentVolumeClaim
	for slot := range int(b.Spec.Nodes) {
		for vol := range volumeCount(b) {
			pvcs = append(pvcs, &corev1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{
					Name: pvcName(b.Name, slot, vol, b.Spec.Nodes), Namespace: b.Namespace, Labels: childLabels(b),
				},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes:      []corev1.PersistentVolumeAccessMode{mode},
					StorageClassName: v.StorageClassName,
					VolumeMode:       v.VolumeMode,
					Resources: corev1.VolumeResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceStorage: *v.Size},
					},
				},
			})
		}
	}
	return pvcs
}

// jobParams picks one Job of a repetition.
type jobParams struct {
	rep, slot, attempt int
	// image runs the tool: the spec's, or the manager's fio image.
	image string
	// dropCachesImage runs the privileged page-cache drop: always the
	// manager's own fio image, never one a user named.
	dropCachesImage string
	// nodeFactsImage runs the node-facts step: the manager's image; empty,
	// none.
	nodeFactsImage string
	// jobFile is the fio job file, which the pod reads from its annotation;
	// empty with dd.
	jobFile string
	// hostPathPrefixes are the admin's host directories: a host path's
	// volume is the one that holds it (splitHostPath).
	hostPathPrefixes []string
}

// constructJob is the Job of one node slot of one repetition attempt. It runs
// once (backoffLimit 0): the controller decides what a failure means.
func constructJob(b *benchv1.StorageBenchmark, p jobParams) (*batchv1.Job, error) {
	pod, err := constructPodSpec(b, p)
	if err != nil {
		return nil, err
	}
	labels := childLabels(b)
	labels[benchv1.RepetitionLabel] = strconv.Itoa(p.rep)
	labels[attemptLabel] = strconv.Itoa(p.attempt)
	labels[children.SlotLabel] = strconv.Itoa(p.slot)
	deadline := int64((startTimeout(b) + runTimeout(b)).Seconds())
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: jobName(b.Name, p.rep, p.slot, p.attempt, b.Spec.Nodes), Namespace: b.Namespace, Labels: labels,
		},
		Spec: batchv1.JobSpec{
			Parallelism:  ptr.To[int32](1),
			Completions:  ptr.To[int32](1),
			BackoffLimit: ptr.To[int32](0),
			// A backstop for when the manager is down; the controller enforces the
			// start and run timeouts itself, with a better message.
			ActiveDeadlineSeconds: &deadline,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: podAnnotations(b, p)},
				Spec:       *pod,
			},
		},
	}, nil
}

// podAnnotations carry the fio job file, which a downward API volume puts
// where fio reads it (jobFileDir): `kubectl get job -o yaml` shows what ran.
func podAnnotations(b *benchv1.StorageBenchmark, p jobParams) map[string]string {
	if b.Spec.Fio == nil {
		return nil
	}
	return map[string]string{benchv1.FioJobFileAnnotation: p.jobFile}
}

// toolSteps are the containers that run the benchmark, in order: the fio run,
// or the dd tests (each its own container, so each log is one test's output;
// a test of several processes runs them all in its one container).
func toolSteps(b *benchv1.StorageBenchmark, image string) ([]corev1.Container, error) {
	tool := func(name string, argv []string) corev1.Container {
		return corev1.Container{
			Name: name, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
			Command: argv[:1], Args: argv[1:],
			SecurityContext: restrictedContainer(),
		}
	}
	if b.Spec.Fio != nil {
		// json, not json+: the latency histograms of json+ would make the log
		// of a large preset outgrow the kubelet's log rotation (10 MiB).
		return []corev1.Container{tool(fioContainer, []string{"fio", "--output-format=json", "--eta=never", jobFileDir + "/" + jobFileKey})}, nil
	}
	if b.Spec.DD == nil {
		return nil, fmt.Errorf("the spec has neither fio nor dd")
	}
	dir := dataDir + "0"
	var steps []corev1.Container
	if prep := fio.DDPrepareArgs(b.Spec.DD.Tests, dir, fio.PodDDExec); prep != nil {
		steps = append(steps, tool(ddPrepareContainer, prep))
	}
	for _, t := range b.Spec.DD.Tests {
		if t.Name == ddPrepareContainer || t.Name == dropCachesContainer || t.Name == children.NodeFactsContainer || t.Name == children.SamplerContainer {
			return nil, fmt.Errorf("dd test name %q is reserved for benchwright's own step: rename the test", t.Name)
		}
		argv, err := fio.DDArgs(t, dir, fio.PodDDExec)
		if err != nil {
			return nil, err
		}
		steps = append(steps, tool(t.Name, argv))
	}
	return steps, nil
}
