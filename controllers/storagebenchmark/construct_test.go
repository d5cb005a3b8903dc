package storagebenchmark

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/crdbounds"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/test/wrappers"
)

// quantities compare by value (resource.Quantity has unexported fields).
var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

// dbBench is a one-node fio benchmark (one 4k randread job) on two 100Gi
// premium-rwo claims in pool ssd, 3 repetitions.
func dbBench() *wrappers.StorageBenchmarkWrapper {
	return wrappers.MakeStorageBenchmark("db", "perf").Pool("ssd").Repetitions(3).Nodes(1).
		Claims(2, "100Gi", "premium-rwo").FioJobs(benchv1.FioJob{Name: "randread", RW: "randread"})
}

// emptyDirBench is dbBench on one emptyDir in memory.
func emptyDirBench() *wrappers.StorageBenchmarkWrapper {
	return dbBench().EmptyDir(corev1.StorageMediumMemory, "8Gi")
}

// hostPathBench is dbBench on two directories of the node.
func hostPathBench() *wrappers.StorageBenchmarkWrapper {
	return dbBench().HostPath("/mnt/disks/ssd0", "/mnt/disks/ssd1")
}

func mustJob(t *testing.T, b *benchv1.StorageBenchmark, p jobParams) *batchv1.Job {
	t.Helper()
	job, err := constructJob(b, p)
	if err != nil {
		t.Fatalf("constructJob: %v", err)
	}
	return job
}

// The whole Job of the default fixture, field by field.
func TestConstructJob(t *testing.T) {
	labels := map[string]string{
		benchv1.BenchmarkLabel: "db", benchv1.KindLabel: "StorageBenchmark",
		benchv1.RepetitionLabel: "1", attemptLabel: "0", children.SlotLabel: "0",
	}
	want := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "db-r1", Namespace: "perf", Labels: labels},
		Spec: batchv1.JobSpec{
			Parallelism:           ptr.To[int32](1),
			Completions:           ptr.To[int32](1),
			BackoffLimit:          ptr.To[int32](0),
			ActiveDeadlineSeconds: ptr.To[int64](15*60 + 2*3600),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"benchwright.io/fio-job-file": "[randread]\n"}},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr.To(false),
					EnableServiceLinks:           ptr.To(false),
					Containers: []corev1.Container{{
						Name: "fio", Image: "fio:3.36", ImagePullPolicy: corev1.PullIfNotPresent,
						Command: []string{"fio"},
						Args:    []string{"--output-format=json", "--eta=never", "/etc/benchwright/job.fio"},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "data0", MountPath: "/data/0"},
							{Name: "data1", MountPath: "/data/1"},
							{Name: "tmp", MountPath: "/tmp"},
							{Name: "job-file", MountPath: "/etc/benchwright", ReadOnly: true},
						},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
					Volumes: []corev1.Volume{
						{Name: "data0", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "db-data0"}}},
						{Name: "data1", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "db-data1"}}},
						{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						// fio reads the template's annotation where it read the
						// ConfigMap's key: its argv did not change.
						{Name: "job-file", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
							Items: []corev1.DownwardAPIVolumeFile{{
								Path:     "job.fio",
								FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['benchwright.io/fio-job-file']"},
							}},
						}}},
					},
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532),
						FSGroup: ptr.To[int64](65532), FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					TerminationGracePeriodSeconds: ptr.To[int64](10),
					NodeSelector:                  map[string]string{"benchwright.io/pool": "ssd"},
					Tolerations: append([]corev1.Toleration{{
						Key: "benchwright.io/pool", Operator: corev1.TolerationOpEqual, Value: "ssd", Effect: corev1.TaintEffectNoSchedule,
					}}, children.NodeLostTolerations()...),
				},
			},
		},
	}
	got := mustJob(t, dbBench().Obj(), jobParams{rep: 1, image: "fio:3.36", jobFile: "[randread]\n"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constructJob (-want +got):\n%s", diff)
	}
}

func TestConstructJobMeta(t *testing.T) {
	b := dbBench().Nodes(4).StartTimeout(5 * time.Minute).RunTimeout(30 * time.Minute).Obj()
	job := mustJob(t, b, jobParams{rep: 2, slot: 3, attempt: 1})
	wantLabels := map[string]string{
		benchv1.BenchmarkLabel: "db", benchv1.KindLabel: "StorageBenchmark",
		benchv1.RepetitionLabel: "2", attemptLabel: "1", children.SlotLabel: "3",
	}
	if diff := cmp.Diff(wantLabels, job.Labels); diff != "" {
		t.Errorf("Job labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLabels, job.Spec.Template.Labels); diff != "" {
		t.Errorf("pod template labels (-want +got):\n%s", diff)
	}
	if job.Name != "db-r2-n3-a1" {
		t.Errorf("name = %q, want db-r2-n3-a1", job.Name)
	}
	if got := *job.Spec.ActiveDeadlineSeconds; got != 35*60 {
		t.Errorf("activeDeadlineSeconds = %d, want start+run = %d", got, 35*60)
	}
}

func TestPlacement(t *testing.T) {
	spread := &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
				benchv1.BenchmarkLabel: "db", benchv1.KindLabel: "StorageBenchmark",
				benchv1.RepetitionLabel: "2", attemptLabel: "1",
			}},
			TopologyKey: "kubernetes.io/hostname",
		}},
	}}
	extra := corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}
	poolToleration := corev1.Toleration{Key: "benchwright.io/pool", Operator: corev1.TolerationOpEqual, Value: "ssd", Effect: corev1.TaintEffectNoSchedule}
	lost := children.NodeLostTolerations()
	patient := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](600)}
	for _, tc := range []struct {
		name         string
		bench        *wrappers.StorageBenchmarkWrapper
		nodeSelector map[string]string
		tolerations  []corev1.Toleration
		affinity     *corev1.Affinity
	}{
		{
			name:         "pool",
			bench:        dbBench(),
			nodeSelector: map[string]string{"benchwright.io/pool": "ssd"},
			tolerations:  append([]corev1.Toleration{poolToleration}, lost...),
		},
		{
			name:         "pool with extra tolerations",
			bench:        dbBench().Tolerations(extra),
			nodeSelector: map[string]string{"benchwright.io/pool": "ssd"},
			tolerations:  append([]corev1.Toleration{poolToleration, extra}, lost...),
		},
		{
			name:         "a spec that waits longer for a lost node keeps its own",
			bench:        dbBench().Tolerations(patient),
			nodeSelector: map[string]string{"benchwright.io/pool": "ssd"},
			tolerations:  []corev1.Toleration{poolToleration, patient, lost[1]},
		},
		{
			name:         "nodeSelector",
			bench:        dbBench().NodeSelector(map[string]string{"disk": "nvme", "zone": "a"}).Tolerations(extra),
			nodeSelector: map[string]string{"disk": "nvme", "zone": "a"},
			tolerations:  append([]corev1.Toleration{extra}, lost...),
		},
		{
			name:         "several nodes spread one pod per host, per repetition and attempt",
			bench:        dbBench().Nodes(3),
			nodeSelector: map[string]string{"benchwright.io/pool": "ssd"},
			tolerations:  append([]corev1.Toleration{poolToleration}, lost...),
			affinity:     spread,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.bench.Obj()
			pod := mustJob(t, b, jobParams{rep: 2, slot: 1, attempt: 1}).Spec.Template.Spec
			if diff := cmp.Diff(tc.nodeSelector, pod.NodeSelector); diff != "" {
				t.Errorf("nodeSelector (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.tolerations, pod.Tolerations); diff != "" {
				t.Errorf("tolerations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.affinity, pod.Affinity); diff != "" {
				t.Errorf("affinity (-want +got):\n%s", diff)
			}
			// The spec's map is copied, not shared with the pod.
			pod.NodeSelector["mutated"] = "yes"
			if _, leaked := b.Spec.NodeSelector["mutated"]; leaked {
				t.Error("the pod's nodeSelector aliases spec.nodeSelector")
			}
		})
	}
}

// Where the volumes appear in the pod and who may write them.
func TestPodVolumesAndSecurity(t *testing.T) {
	root := &corev1.PodSecurityContext{
		RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0), RunAsNonRoot: ptr.To(false),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	nonRoot := &corev1.PodSecurityContext{
		RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532),
		FSGroup: ptr.To[int64](65532), FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	pvc := func(name string) corev1.VolumeSource {
		return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}
	}
	host := func(path string) corev1.VolumeSource {
		return corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: ptr.To(corev1.HostPathDirectory)}}
	}
	dataMounts := []corev1.VolumeMount{{Name: "data0", MountPath: "/data/0"}, {Name: "data1", MountPath: "/data/1"}}
	for _, tc := range []struct {
		name     string
		bench    *wrappers.StorageBenchmarkWrapper
		volumes  []corev1.Volume // without the job file
		mounts   []corev1.VolumeMount
		devices  []corev1.VolumeDevice
		security *corev1.PodSecurityContext
	}{
		{
			name:     "Filesystem claims",
			bench:    dbBench(),
			volumes:  []corev1.Volume{{Name: "data0", VolumeSource: pvc("db-data0")}, {Name: "data1", VolumeSource: pvc("db-data1")}},
			mounts:   dataMounts,
			security: nonRoot,
		},
		{
			name:     "Block claims are devices, used as root",
			bench:    dbBench().Block(),
			volumes:  []corev1.Volume{{Name: "data0", VolumeSource: pvc("db-data0")}, {Name: "data1", VolumeSource: pvc("db-data1")}},
			devices:  []corev1.VolumeDevice{{Name: "data0", DevicePath: "/dev/bw0"}, {Name: "data1", DevicePath: "/dev/bw1"}},
			security: root,
		},
		{
			name:  "claims of slot 1 of several nodes",
			bench: dbBench().Nodes(2),
			volumes: []corev1.Volume{
				{Name: "data0", VolumeSource: pvc("db-n1-data0")}, {Name: "data1", VolumeSource: pvc("db-n1-data1")},
			},
			mounts:   dataMounts,
			security: nonRoot,
		},
		{
			name:  "emptyDir",
			bench: emptyDirBench(),
			volumes: []corev1.Volume{{Name: "data0", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(resource.MustParse("8Gi")),
			}}}},
			mounts:   dataMounts[:1],
			security: nonRoot,
		},
		{
			name:    "hostPath: the admin's directory as the volume, the rest as subPath",
			bench:   hostPathBench(),
			volumes: []corev1.Volume{{Name: "data0", VolumeSource: host("/mnt/disks")}, {Name: "data1", VolumeSource: host("/mnt/disks")}},
			mounts: []corev1.VolumeMount{
				{Name: "data0", MountPath: "/data/0", SubPath: "ssd0"}, {Name: "data1", MountPath: "/data/1", SubPath: "ssd1"},
			},
			security: root,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := mustJob(t, tc.bench.Obj(), jobParams{slot: 1, hostPathPrefixes: []string{"/mnt/disks/"}}).Spec.Template.Spec
			vols := pod.Volumes[:len(pod.Volumes)-1]
			tmp := corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
			if diff := cmp.Diff(append(append([]corev1.Volume{}, tc.volumes...), tmp), vols, quantities); diff != "" {
				t.Errorf("volumes (-want +got):\n%s", diff)
			}
			fioStep := pod.Containers[0]
			wantMounts := append(append([]corev1.VolumeMount{}, tc.mounts...),
				corev1.VolumeMount{Name: "tmp", MountPath: "/tmp"},
				corev1.VolumeMount{Name: "job-file", MountPath: "/etc/benchwright", ReadOnly: true})
			if diff := cmp.Diff(wantMounts, fioStep.VolumeMounts); diff != "" {
				t.Errorf("mounts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.devices, fioStep.VolumeDevices); diff != "" {
				t.Errorf("devices (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.security, pod.SecurityContext); diff != "" {
				t.Errorf("pod securityContext (-want +got):\n%s", diff)
			}
			// Root or not, the tool has no capability and no privilege.
			if diff := cmp.Diff(restrictedContainer(), fioStep.SecurityContext); diff != "" {
				t.Errorf("container securityContext (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDropCaches(t *testing.T) {
	b := dbBench().DropCaches().FioJobs(benchv1.FioJob{Name: "randread", RW: "randread", Direct: ptr.To(false)}).Obj()
	// A user's image runs the tool; the privileged step runs the manager's.
	pod := mustJob(t, b, jobParams{image: "example.com/team/fio:custom", dropCachesImage: "fio:3.36"}).Spec.Template.Spec
	want := []corev1.Container{{
		Name: "drop-caches", Image: "fio:3.36", ImagePullPolicy: corev1.PullIfNotPresent,
		Command: []string{"/bin/sh"}, Args: []string{"-c", "sync && echo 3 > /proc/sys/vm/drop_caches"},
		SecurityContext: &corev1.SecurityContext{
			Privileged: ptr.To(true), RunAsUser: ptr.To[int64](0), RunAsNonRoot: ptr.To(false),
		},
	}}
	// No mounts, no env, nothing from the spec but the image.
	if diff := cmp.Diff(want, pod.InitContainers); diff != "" {
		t.Errorf("init containers (-want +got):\n%s", diff)
	}
	if got := mustJob(t, dbBench().Obj(), jobParams{}).Spec.Template.Spec.InitContainers; len(got) != 0 {
		t.Errorf("without dropCaches: init containers %v, want none", got)
	}
}

// containerArgv is each container's name and argv, init containers first.
func containerArgv(pod corev1.PodSpec) (init, main [][]string) {
	flat := func(cs []corev1.Container) [][]string {
		var out [][]string
		for _, c := range cs {
			out = append(out, append(append([]string{c.Name + ":"}, c.Command...), c.Args...))
		}
		return out
	}
	return flat(pod.InitContainers), flat(pod.Containers)
}

func TestDDSteps(t *testing.T) {
	const file = "/data/0/benchwright-dd.dat"
	write := benchv1.DDTest{Name: "write-dsync", Operation: benchv1.DDWrite, BlockSize: "1M", Count: 100, OFlag: "dsync"}
	read := benchv1.DDTest{Name: "read-direct", Operation: benchv1.DDRead, BlockSize: "1M", Count: 200, IFlag: "direct"}
	writeArgv := []string{"write-dsync:", "dd", "if=/dev/zero", "of=" + file, "oflag=dsync", "bs=1M", "count=100"}
	readArgv := []string{"read-direct:", "dd", "if=" + file, "of=/dev/null", "iflag=direct", "bs=1M", "count=200"}
	for _, tc := range []struct {
		name       string
		bench      *wrappers.StorageBenchmarkWrapper
		init, main [][]string
	}{
		{
			name:  "one test is the main container",
			bench: dbBench().DD(write),
			main:  [][]string{writeArgv},
		},
		{
			name:  "tests run in order, the last one as main container",
			bench: dbBench().DD(write, read),
			init:  [][]string{writeArgv},
			main:  [][]string{readArgv},
		},
		{
			name:  "a first read needs the file: dd-prepare writes it",
			bench: dbBench().DD(read, write),
			init: [][]string{
				{"dd-prepare:", "dd", "if=/dev/zero", "of=" + file, "bs=1M", "count=200", "conv=fsync"},
				readArgv,
			},
			main: [][]string{writeArgv},
		},
		{
			// One container runs every process: init containers run one
			// after the other, so processes in several would not overlap.
			name: "several processes: one container, the group script, the spec's values as arguments",
			bench: dbBench().DD(
				benchv1.DDTest{Name: "write-4", Operation: benchv1.DDWrite, BlockSize: "1M", Count: 100, Processes: 4},
				benchv1.DDTest{Name: "read-8", Operation: benchv1.DDRead, BlockSize: "1M", Count: 50, Processes: 8}),
			init: [][]string{
				{"dd-prepare:", "/bin/sh", "-c", "SCRIPT", "benchwright-dd", "8", "dd", "/tmp", "of", file, "if=/dev/zero", "bs=1M", "count=50", "conv=fsync"},
				{"write-4:", "/bin/sh", "-c", "SCRIPT", "benchwright-dd", "4", "dd", "/tmp", "of", file, "if=/dev/zero", "bs=1M", "count=100"},
			},
			main: [][]string{{"read-8:", "/bin/sh", "-c", "SCRIPT", "benchwright-dd", "8", "dd", "/tmp", "if", file, "of=/dev/null", "bs=1M", "count=50"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := mustJob(t, tc.bench.Obj(), jobParams{}).Spec.Template.Spec
			for _, c := range append(pod.InitContainers, pod.Containers...) {
				if len(c.Args) > 1 && c.Args[0] == "-c" {
					if !strings.Contains(c.Args[1], `"$dd" "$key=$f" "$@"`) {
						t.Errorf("%s: not the group script: %q", c.Name, c.Args[1])
					}
					c.Args[1] = "SCRIPT"
				}
			}
			init, main := containerArgv(pod)
			if diff := cmp.Diff(tc.init, init); diff != "" {
				t.Errorf("init containers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.main, main); diff != "" {
				t.Errorf("containers (-want +got):\n%s", diff)
			}
			// dd has no job file; every step sees the data volumes and /tmp.
			for _, c := range append(pod.InitContainers, pod.Containers...) {
				want := []corev1.VolumeMount{{Name: "data0", MountPath: "/data/0"}, {Name: "data1", MountPath: "/data/1"}, {Name: "tmp", MountPath: "/tmp"}}
				if diff := cmp.Diff(want, c.VolumeMounts); diff != "" {
					t.Errorf("%s mounts (-want +got):\n%s", c.Name, diff)
				}
			}
			if n := len(pod.Volumes); n != 3 {
				t.Errorf("%d volumes, want the 2 data volumes and /tmp only", n)
			}
		})
	}
}

// With dropCaches, the page cache must be empty when the first timed test
// starts, so the untimed dd-prepare write has to come before drop-caches.
func TestDropCachesAfterDDPrepare(t *testing.T) {
	read := benchv1.DDTest{Name: "read", Operation: benchv1.DDRead, Count: 10}
	b := dbBench().DD(read).DropCaches().Obj()
	var names []string
	for _, c := range mustJob(t, b, jobParams{}).Spec.Template.Spec.InitContainers {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"dd-prepare", "drop-caches"}, names); diff != "" {
		t.Errorf("init containers (-want +got):\n%s", diff)
	}
}

func TestToolStepsRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bench *wrappers.StorageBenchmarkWrapper
		want  string
	}{
		{"neither tool", dbBench().NoTool(), "the spec has neither fio nor dd"},
		{"reserved dd name", dbBench().DD(benchv1.DDTest{Name: "drop-caches", Operation: benchv1.DDWrite, Count: 1}),
			`dd test name "drop-caches" is reserved for benchwright's own step: rename the test`},
		{"bad dd block size", dbBench().DD(benchv1.DDTest{Name: "w", Operation: benchv1.DDWrite, BlockSize: "1m", Count: 1}),
			`dd test "w": blockSize "1m" is not a byte count like 1M`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := constructJob(tc.bench.Obj(), jobParams{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTargets(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bench *wrappers.StorageBenchmarkWrapper
		want  fio.Targets
	}{
		{"claims", dbBench().VolumeCount(3), fio.Targets{Dirs: []string{"/data/0", "/data/1", "/data/2"}}},
		{"block claims", dbBench().Block(), fio.Targets{Devices: []string{"/dev/bw0", "/dev/bw1"}}},
		{"emptyDir", emptyDirBench(), fio.Targets{Dirs: []string{"/data/0"}}},
		{"hostPath", hostPathBench(), fio.Targets{Dirs: []string{"/data/0", "/data/1"}}},
		// A volumeMode without size (rejected by the API) does not make devices.
		{"block without size", emptyDirBench().Block(), fio.Targets{Dirs: []string{"/data/0"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, targets(tc.bench.Obj())); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobFile(t *testing.T) {
	const head = "; generated by benchwright\n[global]\ngroup_reporting=1\nstonewall\nrandrepeat=0\n\n[randread]\n"
	const opts = "rw=randread\nbs=4k\niodepth=1\nnumjobs=1\nioengine=libaio\ndirect=1\n"
	for _, tc := range []struct {
		name  string
		bench *wrappers.StorageBenchmarkWrapper
		want  string
	}{
		{"directories", dbBench(),
			head + "filename=/data/0/benchwright.randread.fio:/data/1/benchwright.randread.fio\n" + opts + "size=1G\n"},
		{"devices have no size", dbBench().Block(), head + "filename=/dev/bw0:/dev/bw1\n" + opts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.bench.Obj()
			jobFile, err := constructJobFile(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, jobFile); diff != "" {
				t.Errorf("job file (-want +got):\n%s", diff)
			}
		})
	}
}

// A dd benchmark's pods read no job file: no annotation, no volume.
func TestDDHasNoJobFile(t *testing.T) {
	b := dbBench().Obj()
	b.Spec.Fio, b.Spec.DD = nil, &benchv1.DDSpec{Tests: []benchv1.DDTest{{Name: "write", Operation: benchv1.DDWrite, BlockSize: "1M", Count: 8}}}
	job := mustJob(t, b, jobParams{})
	if a := job.Spec.Template.Annotations; a != nil {
		t.Errorf("annotations %v", a)
	}
	for _, v := range job.Spec.Template.Spec.Volumes {
		if v.DownwardAPI != nil || v.Name == jobFileMount {
			t.Errorf("volume %+v", v)
		}
	}
}

// jobsOfLongNames are n fio jobs with names of the longest the CRD allows.
func jobsOfLongNames(t *testing.T, n int) []benchv1.FioJob {
	t.Helper()
	maxName, err := crdbounds.MaxLength(kind, "spec.fio.jobs[].name")
	if err != nil {
		t.Fatal(err)
	}
	jobs := make([]benchv1.FioJob, n)
	for i := range jobs {
		name := fmt.Sprintf("%d-", i)
		jobs[i] = benchv1.FioJob{Name: name + strings.Repeat("j", maxName-len(name)), RW: "randread"}
	}
	return jobs
}

// The largest spec the CRD allows (every job, every volume, the longest
// names) makes a job file over the bound: it is refused with what to shrink,
// and one of a usual size passes.
func TestCheckJobFile(t *testing.T) {
	maxJobs, err := crdbounds.MaxItems(kind, "spec.fio.jobs")
	if err != nil {
		t.Fatal(err)
	}
	maxVolumes, err := crdbounds.Maximum(kind, "spec.volumes.count")
	if err != nil {
		t.Fatal(err)
	}
	largest := dbBench().FioJobs(jobsOfLongNames(t, maxJobs)...).Obj()
	largest.Spec.Volumes.Count = int32(maxVolumes)
	jobFile, err := constructJobFile(largest)
	if err != nil {
		t.Fatal(err)
	}
	err = checkJobFile(jobFile)
	if err == nil || !strings.Contains(err.Error(), "over the 128 KiB") || !strings.Contains(err.Error(), "spec.fio.jobs") || !strings.Contains(err.Error(), "spec.volumes.count") {
		t.Errorf("a job file of %d KiB: %v", len(jobFile)/1024, err)
	}
	t.Logf("the largest job file: %d KiB", len(jobFile)/1024)
	usual, err := constructJobFile(dbBench().FioJobs(jobsOfLongNames(t, 16)...).Obj())
	if err != nil {
		t.Fatal(err)
	}
	if err := checkJobFile(usual); err != nil {
		t.Errorf("a job file of %d KiB: %v", len(usual)/1024, err)
	}
}

func TestConstructPVCs(t *testing.T) {
	claim := func(name string, mode corev1.PersistentVolumeAccessMode, vm *corev1.PersistentVolumeMode) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "perf", Labels: map[string]string{
				benchv1.BenchmarkLabel: "db", benchv1.KindLabel: "StorageBenchmark",
			}},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes:      []corev1.PersistentVolumeAccessMode{mode},
				StorageClassName: ptr.To("premium-rwo"),
				VolumeMode:       vm,
				Resources: corev1.VolumeResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Gi")},
				},
			},
		}
	}
	block := ptr.To(corev1.PersistentVolumeBlock)
	for _, tc := range []struct {
		name  string
		bench *wrappers.StorageBenchmarkWrapper
		want  []*corev1.PersistentVolumeClaim
	}{
		{"one node", dbBench(), []*corev1.PersistentVolumeClaim{
			claim("db-data0", corev1.ReadWriteOnce, nil), claim("db-data1", corev1.ReadWriteOnce, nil),
		}},
		{"every node its own disks, block, RWOP", dbBench().Nodes(2).AccessMode(corev1.ReadWriteOncePod).Block(), []*corev1.PersistentVolumeClaim{
			claim("db-n0-data0", corev1.ReadWriteOncePod, block), claim("db-n0-data1", corev1.ReadWriteOncePod, block),
			claim("db-n1-data0", corev1.ReadWriteOncePod, block), claim("db-n1-data1", corev1.ReadWriteOncePod, block),
		}},
		{"emptyDir has no claims", emptyDirBench(), nil},
		{"hostPath has no claims", hostPathBench(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, constructPVCs(tc.bench.Obj()), quantities); diff != "" {
				t.Errorf("PVCs (-want +got):\n%s", diff)
			}
		})
	}
}

// Benchmark names may be 253 characters; label values only 63.
func TestChildLabelsOfLongName(t *testing.T) {
	b := dbBench().Name(strings.Repeat("a", 70)).Obj()
	for k, v := range mustJob(t, b, jobParams{}).Spec.Template.Labels {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("label %s=%q: %v", k, v, errs)
		}
	}
}

// The node-facts step runs first, unprivileged, from the manager's image
// whatever image the spec names, with the tool's resources.
func TestNodeFactsStep(t *testing.T) {
	read := benchv1.DDTest{Name: "read", Operation: benchv1.DDRead, Count: 10}
	b := dbBench().DD(read).DropCaches().Obj()
	b.Spec.Monitoring.Enabled = ptr.To(false)
	pod := mustJob(t, b, jobParams{image: "example.com/team/fio:custom", nodeFactsImage: "ghcr.io/benchwright/manager:v1"}).Spec.Template.Spec
	var names []string
	for _, c := range pod.InitContainers {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"node-facts", "dd-prepare", "drop-caches"}, names); diff != "" {
		t.Fatalf("init containers (-want +got):\n%s", diff)
	}
	want := children.NodeFactsStep("ghcr.io/benchwright/manager:v1", false, pod.Containers[0].Resources)
	if diff := cmp.Diff(want, pod.InitContainers[0]); diff != "" {
		t.Errorf("node-facts step (-want +got):\n%s", diff)
	}
	c := pod.InitContainers[0]
	if sc := c.SecurityContext; c.Image != "ghcr.io/benchwright/manager:v1" || sc.Privileged != nil || !*sc.RunAsNonRoot || *sc.AllowPrivilegeEscalation ||
		len(c.VolumeMounts) != 0 || len(c.Env) != 0 {
		t.Errorf("node-facts step %+v: want the manager's image, non-root, unprivileged, nothing mounted", c)
	}
	if diff := cmp.Diff([]string{"/benchwright", "nodefacts", "--network=pod", "--termination-log=/dev/termination-log"}, append(c.Command, c.Args...)); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	if _, err := toolSteps(dbBench().DD(benchv1.DDTest{Name: "node-facts", Operation: benchv1.DDWrite, Count: 1}).Obj(), "fio"); err == nil {
		t.Error("a dd test named node-facts was accepted")
	}
}

// The sampler is a native sidecar before every step, from the manager's
// image, unprivileged, with the data volumes read-only, in a pod that shares
// its process namespace; monitoring.enabled false leaves it out.
func TestSamplerSidecar(t *testing.T) {
	read := benchv1.DDTest{Name: "read", Operation: benchv1.DDRead, Count: 10}
	b := dbBench().DD(read).Obj()
	b.Spec.Monitoring.Interval = &metav1.Duration{Duration: 500 * time.Millisecond}
	pod := mustJob(t, b, jobParams{image: "example.com/team/fio:custom", nodeFactsImage: "ghcr.io/benchwright/manager:v1"}).Spec.Template.Spec
	var names []string
	for _, c := range pod.InitContainers {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"sampler", "node-facts", "dd-prepare"}, names); diff != "" {
		t.Fatalf("init containers (-want +got):\n%s", diff)
	}
	c := pod.InitContainers[0]
	if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways || pod.ShareProcessNamespace == nil || !*pod.ShareProcessNamespace {
		t.Errorf("sampler restartPolicy %v, shareProcessNamespace %v: want a native sidecar in a shared process namespace", c.RestartPolicy, pod.ShareProcessNamespace)
	}
	if sc := c.SecurityContext; c.Image != "ghcr.io/benchwright/manager:v1" || sc.Privileged != nil || !*sc.RunAsNonRoot || *sc.AllowPrivilegeEscalation || len(sc.Capabilities.Drop) != 1 {
		t.Errorf("sampler %+v: want the manager's image, non-root, unprivileged", c)
	}
	if diff := cmp.Diff([]string{"/benchwright", "sample", "--procs", "--interval=500ms", "--volume=" + dataDir + "0", "--volume=" + dataDir + "1"}, append(c.Command, c.Args...)); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	if len(c.VolumeMounts) != 2 || !c.VolumeMounts[0].ReadOnly || !c.VolumeMounts[1].ReadOnly || c.VolumeMounts[1].MountPath != dataDir+"1" {
		t.Errorf("mounts %+v: want the two data volumes read-only", c.VolumeMounts)
	}
	if !equality.Semantic.DeepEqual(c.Resources.Requests, c.Resources.Limits) {
		t.Errorf("resources %+v: requests must equal limits (a Guaranteed pod stays Guaranteed)", c.Resources)
	}
	b.Spec.Monitoring.Enabled = ptr.To(false)
	off := mustJob(t, b, jobParams{image: "fio", nodeFactsImage: "ghcr.io/benchwright/manager:v1"}).Spec.Template.Spec
	if children.HasSampler(&corev1.Pod{Spec: off}) || off.ShareProcessNamespace != nil {
		t.Errorf("monitoring off: init containers %v, shareProcessNamespace %v", off.InitContainers, off.ShareProcessNamespace)
	}
}
