//go:build real

package real

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/mpi/osu"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
	"github.com/benchwright/benchwright/test/wrappers"
)

// BenchmarkOSUMPIBenchmarkVsBareMPIRun measures what benchwright adds to an
// MPI run: PAIRS (default 8) alternated pairs of
//
//   - the quickstart's osu_latency and osu_bw (1 B to 1 MiB), one repetition
//     through an MPIBenchmark: the MPI Operator's launcher running
//     benchwright steps, mpirun reaching the worker's sshd;
//   - the same argv (mpi.BuildLaunch: the operator's own), run bare with
//     kubectl exec in the launcher of a twin MPIJob, a copy of the
//     benchmark's own MPIJob (same image, environment, hostfile, binding)
//     whose launcher sleeps; and next to it, benchwright steps run the same
//     way in those same pods.
//
// Per pair it prints the 8-byte latency and the peak bandwidth of each, and
// the seconds from the MPIJob's creation to mpirun's first line of output (the
// launcher log's kubelet timestamps). It reports the median ratios
// MPIBenchmark / bare (latency-ratio, bw-ratio) and benchwright steps / bare
// in the same pods (steps-latency-ratio, steps-bw-ratio).
//
// LAYOUT=off (default: one rank on each node; OSU prints 2 decimals, and the
// off-node latency is large enough for a 1 % difference to show) or on (two
// ranks on one node); MPI=openmpi (default) or mpich; ITERATIONS=N gives both
// tests -i N -x N/10 instead of OSU's own counts (the quickstart had 1000:
// see its comment).
//
//	make bench-real-mpi             # or: PAIRS=10 LAYOUT=on MPI=mpich make bench-real-mpi
func BenchmarkOSUMPIBenchmarkVsBareMPIRun(b *testing.B) {
	pairs := 8
	if p, err := strconv.Atoi(os.Getenv("PAIRS")); err == nil && p > 0 {
		pairs = p
	}
	spec := osuPairSpec(b, os.Getenv("LAYOUT"), os.Getenv("MPI"))
	launch, err := mpi.BuildLaunch(spec, mpi.Options{IORDir: "/data"})
	if err != nil {
		b.Fatal(err)
	}
	// The twin lives in a namespace of its own: each benchmark's deletion
	// must leave its namespace empty.
	ns, twinNS := newNamespace(b), newNamespace(b)
	var twin string // the twin's launcher pod, made from the first benchmark's MPIJob
	var latRatios, bwRatios, stepsLat, stepsBW, firstOutput []float64
	for i := range pairs {
		var bench, bare, steps osuRun
		// In the twin, bare and steps alternate too.
		runBare := func() {
			if i%2 == 0 {
				bare, steps = bareOSU(b, twinNS, twin, launch), stepsOSU(b, twinNS, twin)
			} else {
				steps, bare = stepsOSU(b, twinNS, twin), bareOSU(b, twinNS, twin, launch)
			}
		}
		// The first benchmark's MPIJob and steps make the twin, before it goes.
		keep := func(job *mpiv2.MPIJob) {
			if twin == "" {
				twin = makeTwin(b, twinNS, job)
			}
		}
		if i%2 == 0 {
			bench = osuThroughBenchmark(b, ns, spec, i, keep)
			runBare()
		} else {
			runBare()
			bench = osuThroughBenchmark(b, ns, spec, i, keep)
		}
		latRatios = append(latRatios, bench.lat8/bare.lat8)
		bwRatios = append(bwRatios, bench.peak/bare.peak)
		stepsLat = append(stepsLat, steps.lat8/bare.lat8)
		stepsBW = append(stepsBW, steps.peak/bare.peak)
		firstOutput = append(firstOutput, bench.firstOutput.Seconds())
		order := "MPIBenchmark, bare, steps"
		if i%2 == 1 {
			order = "steps, bare, MPIBenchmark"
		}
		// On stdout, not b.Logf: go test cuts a benchmark's log short.
		fmt.Printf("pair %d (%s): 8 B latency µs: MPIBenchmark %.2f, bare %.2f, steps %.2f; peak MB/s: MPIBenchmark %.2f, bare %.2f, steps %.2f; "+
			"ratios latency %.4f bw %.4f; MPIJob creation to first output %.1f s\n",
			i+1, order, bench.lat8, bare.lat8, steps.lat8, bench.peak, bare.peak, steps.peak,
			latRatios[i], bwRatios[i], bench.firstOutput.Seconds())
	}
	b.ReportMetric(median(latRatios), "latency-ratio")
	b.ReportMetric(median(bwRatios), "bw-ratio")
	b.ReportMetric(median(stepsLat), "steps-latency-ratio")
	b.ReportMetric(median(stepsBW), "steps-bw-ratio")
	b.ReportMetric(median(firstOutput), "first-output-s")
	fmt.Printf("%s, %s: over %d pairs, MPIBenchmark / bare: 8 B latency median %.4f (%s), peak bandwidth median %.4f (%s); "+
		"benchwright steps / bare in the same pods: latency %.4f (%s), bandwidth %.4f (%s); MPIJob creation to mpirun's first output: median %.1f s (%s)\n",
		spec.MPI.Implementation, describeOSULayout(spec), pairs, median(latRatios), fmtAll(latRatios), median(bwRatios), fmtAll(bwRatios),
		median(stepsLat), fmtAll(stepsLat), median(stepsBW), fmtAll(stepsBW), median(firstOutput), fmtAll(firstOutput))
}

// osuPairSpec is the quickstart OSU spec, once, in the layout and MPI asked
// for.
func osuPairSpec(tb testing.TB, layout, impl string) *benchv1.MPIBenchmarkSpec {
	tb.Helper()
	b := &benchv1.MPIBenchmark{}
	util.LoadExample(tb, "quickstart/osu-latency.yaml", b)
	s := &b.Spec
	s.Repetitions, s.WarmupRepetitions = 1, 0
	if n, err := strconv.Atoi(os.Getenv("ITERATIONS")); err == nil && n > 0 {
		// One count for both tests instead of OSU's own per test.
		s.Iterations, s.WarmupIterations = ptr.To(int32(n)), ptr.To(int32(n/10))
	}
	switch layout {
	case "", "off":
		// The nodes share this machine's cores: unbound (see
		// TestSeed1MPICHOnAndOffNode).
		s.Layout.Nodes, s.Layout.RanksPerNode = 2, 1
		s.Layout.CPUBinding = &benchv1.CPUBinding{Policy: benchv1.BindNone}
	case "on":
	default:
		tb.Fatalf("LAYOUT=%s: want off or on", layout)
	}
	switch impl {
	case "", "openmpi":
		needImage(tb, "IMAGE_MPI_OPENMPI")
	case "mpich":
		needImage(tb, "IMAGE_MPI_MPICH")
		s.MPI.Implementation = benchv1.MPICH
	default:
		tb.Fatalf("MPI=%s: want openmpi or mpich", impl)
	}
	return s
}

func describeOSULayout(s *benchv1.MPIBenchmarkSpec) string {
	return fmt.Sprintf("%d node(s) x %d rank(s), binding %s", s.Layout.Nodes, s.Layout.RanksPerNode, s.Layout.CPUBinding.Policy)
}

// osuRun is what one run of osu_latency and osu_bw gave.
type osuRun struct {
	lat8, peak float64 // µs at 8 B; MB/s at the best size
	// firstOutput is from the MPIJob's creation to mpirun's first line
	// (MPIBenchmark runs only).
	firstOutput time.Duration
}

// osuFigures reads the 8-byte latency and the peak bandwidth off parsed OSU output.
func osuFigures(tb testing.TB, samples []results.Sample) osuRun {
	tb.Helper()
	var r osuRun
	for _, s := range samples {
		switch {
		case s.Test == "osu_latency" && s.Metric == "latency" && s.Labels[results.LabelMsgSize] == "8":
			r.lat8 = s.Value
		case s.Test == "osu_bw" && s.Metric == "bandwidth" && s.Value > r.peak:
			r.peak = s.Value
		}
	}
	if r.lat8 == 0 || r.peak == 0 {
		tb.Fatalf("no 8-byte latency or no bandwidth in %d samples", len(samples))
	}
	return r
}

// osuThroughBenchmark runs spec once as MPIBenchmark pair-<i+1> and returns
// its status figures; it gives its MPIJob to keep, then deletes it.
func osuThroughBenchmark(tb testing.TB, ns string, spec *benchv1.MPIBenchmarkSpec, i int, keep func(*mpiv2.MPIJob)) osuRun {
	tb.Helper()
	b := wrappers.MakeMPIBenchmark(fmt.Sprintf("pair-%d", i+1), ns).Spec(*spec).Obj()
	if err := k8s.Create(ctx(), b); err != nil {
		tb.Fatal(err)
	}
	util.WaitFor(tb, 5*time.Minute, b.Name+" finished", func() (bool, string) {
		if err := k8s.Get(ctx(), client.ObjectKeyFromObject(b), b); err != nil {
			return false, err.Error()
		}
		if b.Status.State == benchv1.StateFailed {
			tb.Fatalf("%s failed: %+v", b.Name, b.Status.Conditions)
		}
		return b.Status.State == benchv1.StateSucceeded, string(b.Status.State)
	})
	sum := b.Status.Summary
	if sum.LatencyMicroseconds == nil || sum.LatencyMessageSize == nil || *sum.LatencyMessageSize != 8 || sum.PeakBandwidthMBps == nil {
		tb.Fatalf("%s: no 8-byte latency or peak bandwidth in its status: %+v", b.Name, sum)
	}
	r := osuRun{lat8: *sum.LatencyMicroseconds, peak: *sum.PeakBandwidthMBps}
	var jobs mpiv2.MPIJobList
	if err := k8s.List(ctx(), &jobs, client.InNamespace(ns), client.MatchingLabels{benchv1.BenchmarkLabel: b.Name}); err != nil || len(jobs.Items) != 1 {
		tb.Fatalf("%s's MPIJobs: %d (%v)", b.Name, len(jobs.Items), err)
	}
	job := jobs.Items[0].DeepCopy()
	r.firstOutput = firstOutputAfter(tb, ns, b.Name, job.CreationTimestamp.Time)
	keep(job)
	util.DeleteAndWaitGone(tb, k8s, b, 2*time.Minute)
	return r
}

// firstOutputAfter is the time from created to the first line the launcher
// of benchmark name printed after its first step's header, by the kubelet's
// timestamps of the launcher's log.
func firstOutputAfter(tb testing.TB, ns, name string, created time.Time) time.Duration {
	tb.Helper()
	var pods corev1.PodList
	if err := k8s.List(ctx(), &pods, client.InNamespace(ns), client.MatchingLabels{
		benchv1.BenchmarkLabel: name, "training.kubeflow.org/job-role": "launcher"}); err != nil || len(pods.Items) != 1 {
		tb.Fatalf("%s's launcher pods: %d (%v)", name, len(pods.Items), err)
	}
	raw, err := clientset.CoreV1().Pods(ns).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{Timestamps: true}).Do(ctx()).Raw()
	if err != nil {
		tb.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	header := false
	for sc.Scan() {
		stamp, line, _ := strings.Cut(sc.Text(), " ")
		if strings.HasPrefix(line, "==> benchwright step 1/") {
			header = true
			continue
		}
		if header {
			at, err := time.Parse(time.RFC3339Nano, stamp)
			if err != nil {
				tb.Fatalf("launcher log timestamp %q: %v", stamp, err)
			}
			return at.Sub(created)
		}
	}
	tb.Fatalf("no output after the first step's header in %s's launcher log:\n%s", name, raw)
	return 0
}

// makeTwin creates MPIJob "twin" in ns, a copy of job whose launcher sleeps,
// and returns its launcher pod once it runs. Its pods carry none of the
// benchmark's labels; its workers keep one node each through a label of
// their own; its launcher reads the benchmark's steps from the annotation
// its template keeps.
func makeTwin(tb testing.TB, ns string, job *mpiv2.MPIJob) string {
	tb.Helper()
	twin := wrappers.MakeMPIJob("twin", ns).Spec(job.Spec).Obj()
	for typ, r := range twin.Spec.MPIReplicaSpecs {
		r.Template.Labels = nil
		if a := r.Template.Spec.Affinity; typ == mpiv2.MPIReplicaTypeWorker && a != nil && a.PodAntiAffinity != nil {
			// The benchmark's workers keep apart by its labels, which the
			// twin's do not carry.
			peers := map[string]string{"benchwright-twin": "worker"}
			r.Template.Labels = peers
			for i := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i].LabelSelector = &metav1.LabelSelector{MatchLabels: peers}
			}
		}
	}
	launcher := &twin.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeLauncher].Template.Spec
	launcher.Containers[0].Command = []string{"sleep", "infinity"}
	if err := k8s.Create(ctx(), twin); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = k8s.Delete(ctx(), twin, client.PropagationPolicy(metav1.DeletePropagationBackground)) })
	var name string
	util.WaitFor(tb, 3*time.Minute, "the twin's launcher running", func() (bool, string) {
		var pods corev1.PodList
		if err := k8s.List(ctx(), &pods, client.InNamespace(ns), client.MatchingLabels{
			"training.kubeflow.org/job-name": "twin", "training.kubeflow.org/job-role": "launcher"}); err != nil {
			return false, err.Error()
		}
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				name = p.Name
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d launcher pods, none running", len(pods.Items))
	})
	return name
}

// bareOSU runs each step's argv in the twin's launcher with kubectl exec, no
// benchwright in between, and reads its figures.
func bareOSU(tb testing.TB, ns, launcher string, l *mpi.Launch) osuRun {
	tb.Helper()
	var samples []results.Sample
	for _, s := range l.Steps {
		out := kc.Run(tb, append([]string{"exec", "-n", ns, launcher, "-c", "launcher", "--"}, s.Argv...)...)
		parsed, err := osu.Parse([]byte(out))
		if err != nil {
			tb.Fatalf("bare %s: %v\n%s", s.Program, err, out)
		}
		samples = append(samples, parsed...)
	}
	return osuFigures(tb, samples)
}

// stepsOSU runs benchwright steps on the benchmark's steps file in the twin's
// launcher, as the MPIBenchmark's launcher does, and reads its figures.
func stepsOSU(tb testing.TB, ns, launcher string) osuRun {
	tb.Helper()
	out := kc.Run(tb, "exec", "-n", ns, launcher, "-c", "launcher", "--", "benchwright", "steps", "/etc/benchwright/steps.json")
	steps, err := mpi.SplitSteps([]byte(out))
	if err != nil {
		tb.Fatalf("benchwright steps: %v\n%s", err, out)
	}
	var samples []results.Sample
	for _, s := range steps {
		parsed, err := osu.Parse(s.Output)
		if err != nil {
			tb.Fatalf("benchwright steps, step %d: %v\n%s", s.Index, err, s.Output)
		}
		samples = append(samples, parsed...)
	}
	return osuFigures(tb, samples)
}
