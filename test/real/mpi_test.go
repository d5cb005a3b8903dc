//go:build real

package real

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/mpi/imb"
	"github.com/benchwright/benchwright/internal/mpi/ior"
	"github.com/benchwright/benchwright/internal/mpi/osu"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
)

// The quickstart OSU benchmark with OpenMPI, as a person applies it: two
// ranks on one node, through the real MPI Operator, a launcher running
// benchwright steps, mpirun reaching the worker's sshd, OSU 7.4 built from
// source in the image.
func TestQuickstartOSU(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	ns := newNamespace(t)
	b := &benchv1.MPIBenchmark{}
	util.LoadExample(t, "quickstart/osu-latency.yaml", b)
	b.Namespace = ns
	runMPIBenchmark(t, b)
}

// Seed 001 with MPICH: two ranks on one node, then one rank on each of the
// two nodes (off-node for real: the bridge between the nodes' namespaces).
// The example's GKE pool becomes an existing pool of the same name over the
// real nodes; the benchmarks are the example's, but for the off-node CPU
// binding (see below).
func TestSeed1MPICHOnAndOffNode(t *testing.T) {
	needImage(t, "IMAGE_MPI_MPICH")
	ns := newNamespace(t)
	var benches []*benchv1.MPIBenchmark
	for _, b := range seedBenchmarks(t, "seeds/s1-osu-on-off-vm.yaml") {
		b.Namespace = ns
		if b.Spec.Layout.Nodes > 1 {
			// The two nodes share this machine's two cores: binding each
			// node's rank to its node's first core pins both ranks to the
			// same physical core, where two busy-polling ranks crawl (an
			// off-node run took minutes per message size). Unbound here.
			b.Spec.Layout.CPUBinding = &benchv1.CPUBinding{Policy: benchv1.BindNone}
		}
		benches = append(benches, b)
	}
	if len(benches) != 2 {
		t.Fatalf("the example has %d MPIBenchmarks, want on-VM and off-VM", len(benches))
	}
	for _, b := range benches {
		t.Run(b.Name, func(t *testing.T) {
			checkSpread(t, runMPIBenchmark(t, b), int(b.Spec.Layout.Nodes))
		})
	}
}

// seedBenchmarks are the MPIBenchmarks of an example file; each of its
// BenchmarkPools becomes an existing pool of the same name over the real
// nodes (deleted when the test ends). Its TuningProfiles are left out.
func seedBenchmarks(t *testing.T, file string) []*benchv1.MPIBenchmark {
	t.Helper()
	var benches []*benchv1.MPIBenchmark
	for _, doc := range strings.Split(readExample(t, file), "\n---\n") {
		switch {
		case strings.Contains(doc, "kind: BenchmarkPool"):
			var example benchv1.BenchmarkPool
			if err := yaml.UnmarshalStrict([]byte(doc), &example); err != nil {
				t.Fatal(err)
			}
			existingPool(t, example.Name)
		case strings.Contains(doc, "kind: MPIBenchmark"):
			b := &benchv1.MPIBenchmark{}
			if err := yaml.UnmarshalStrict([]byte(doc), b); err != nil {
				t.Fatal(err)
			}
			benches = append(benches, b)
		}
	}
	return benches
}

// needImage skips a test whose image the cluster was brought up without
// (the MPI images need the benchmark sources, SOURCES).
func needImage(t testing.TB, variable string) {
	t.Helper()
	if env[variable] == "" {
		t.Skipf("the real cluster has no %s: it was brought up without the benchmark sources (hack/real-images.sh, SOURCES)", variable)
	}
}

// Seed 0's IMB PingPong and Allreduce, one rank on each node: the c2 cell's
// MPIBenchmark with OpenMPI instead of Intel MPI (which cannot be built
// here, so its OFI settings go too), without the hpc-compute tuning (machine-
// wide settings on a shared machine), unbound (see seed 1), 2 repetitions
// after the warm-up instead of 5.
func TestSeed0IMBOffNode(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	ns := newNamespace(t)
	benches := seedBenchmarks(t, "seeds/s0-mpi/c2-standard-8.yaml")
	if len(benches) != 1 || benches[0].Spec.Suite != benchv1.SuiteIMB {
		t.Fatal("the example has no IMB MPIBenchmark")
	}
	b := benches[0]
	b.Namespace = ns
	b.Spec.MPI = benchv1.MPISettings{Implementation: benchv1.OpenMPI}
	b.Spec.Tuning = ""
	b.Spec.Layout.CPUBinding = &benchv1.CPUBinding{Policy: benchv1.BindNone}
	b.Spec.Repetitions = 3
	checkSpread(t, runMPIBenchmark(t, b), 2)
}

// runMPIBenchmark creates b, waits for Succeeded and checks every status
// figure against the launcher logs in the store; it returns the nodes the
// workers of each MPIJob ran on, then deletes b and checks nothing is left.
func runMPIBenchmark(t *testing.T, b *benchv1.MPIBenchmark) map[string][]string {
	t.Helper()
	began := time.Now()
	if err := k8s.Create(ctx(), b); err != nil {
		t.Fatal(err)
	}
	waitSucceeded(t, b, &b.Status.BenchmarkStatusCommon, 8*time.Minute)
	t.Logf("kubectl apply to Succeeded: %s", time.Since(began).Round(100*time.Millisecond))

	raw := rawLogs(t, b.Status.ArtifactURI)
	launch, err := mpi.BuildLaunch(&b.Spec, mpi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var samples []results.Sample
	for name, log := range raw {
		rep, _, _ := strings.Cut(name, "/")
		if r, err := strconv.Atoi(rep); err != nil || r < int(b.Spec.WarmupRepetitions) {
			continue // a warm-up repetition: stored, not counted
		}
		steps, err := mpi.SplitSteps(log)
		if err != nil {
			t.Fatalf("stored launcher log %s: %v", name, err)
		}
		for i, s := range steps {
			if s.Argv != strings.Join(launch.Steps[i].Argv, " ") {
				t.Errorf("%s step %d ran %q, want the operator's argv %q", name, i+1, s.Argv, strings.Join(launch.Steps[i].Argv, " "))
			}
			parsed, err := parseSuite(b.Spec.Suite, s.Output)
			if err != nil {
				t.Fatalf("%s step %d: %v", name, i+1, err)
			}
			samples = append(samples, parsed...)
		}
	}
	checkMPIFigures(t, b, samples)
	// The launchers ran the steps they read from their own annotation (a
	// downward API volume), which the MPI Operator copied from the template.
	checkInputs(t, b.Namespace, b.Status.ArtifactURI, "steps.json", launcherSteps(t, b))

	nodes := workerNodesByJob(t, b.Namespace, b.Name)
	out := kc.Run(t, "get", "mpibenchmarks", "-n", b.Namespace, b.Name)
	t.Logf("kubectl get mpibenchmarks:\n%s", out)
	row := util.Table(t, out)[0]
	reps := strconv.Itoa(int(b.Spec.Repetitions))
	// A headline figure at least: a bandwidth test alone has no latency.
	figures := row["LATENCY(US)"] != "" || row["PEAK(MB/S)"] != ""
	if row["STATE"] != "Succeeded" || row["PROGRESS"] != reps+"/"+reps || !figures {
		t.Errorf("kubectl get: %v", row)
	}
	checkReport(t, b.Name, storeDir(t, b.Status.ArtifactURI))
	// The launcher's and the workers' samplers: every test a phase; the
	// workers, kept for their series, released once it was read.
	var tests []string
	for _, s := range launch.Steps {
		tests = append(tests, s.Tests...)
	}
	checkMonitor(t, b.Status.ArtifactURI, int(b.Spec.Repetitions)*(1+int(b.Spec.Layout.Nodes)), tests, "")
	util.WaitFor(t, time.Minute, "the workers released", func() (bool, string) {
		var pods corev1.PodList
		if err := k8s.List(ctx(), &pods, client.InNamespace(b.Namespace), client.MatchingLabels{benchv1.BenchmarkLabel: b.Name, "benchwright.io/role": "worker"}); err != nil {
			return false, err.Error()
		}
		return len(pods.Items) == 0, fmt.Sprintf("%d worker pods left", len(pods.Items))
	})
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
	return nodes
}

// checkReport renders the run's stored report.html in headless chromium: it
// names the benchmark and draws (more than a blank page).
func checkReport(t *testing.T, name, dir string) {
	t.Helper()
	page := filepath.Join(dir, "report.html")
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("the run's report: %v", err)
	}
	if !strings.Contains(string(html), name) || !strings.Contains(string(html), "<svg") {
		t.Errorf("%s does not name %s or has no plot", page, name)
	}
	img, _ := util.Screenshot(t, page)
	if inked, total := util.Inked(img); inked*100 < total*2 {
		t.Errorf("report.html: only %d of %d pixels drawn", inked, total)
	}
}

// workerNodesByJob reads, from the scheduler's events (the workers are gone
// once their launcher finished), the nodes each MPIJob of benchmark name ran on.
func workerNodesByJob(t *testing.T, ns, name string) map[string][]string {
	t.Helper()
	var events corev1.EventList
	if err := k8s.List(ctx(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range events.Items {
		job, _, isWorker := strings.Cut(e.InvolvedObject.Name, "-worker-")
		_, node, assigned := strings.Cut(e.Message, " to ")
		if e.Reason != "Scheduled" || !isWorker || !assigned || !strings.HasPrefix(job, name+"-r") || slices.Contains(out[job], node) {
			continue
		}
		out[job] = append(out[job], node)
	}
	if len(out) == 0 {
		t.Fatalf("no worker of %s was scheduled in %s", name, ns)
	}
	return out
}

// checkSpread fails unless the workers of every MPIJob ran on want nodes.
func checkSpread(t *testing.T, byJob map[string][]string, want int) {
	t.Helper()
	for job, nodes := range byJob {
		if len(nodes) != want {
			t.Errorf("the workers of %s ran on %v, want %d node(s)", job, nodes, want)
		}
	}
}

// parseSuite parses a step's output with the suite's parser.
func parseSuite(suite benchv1.MPISuite, out []byte) ([]results.Sample, error) {
	switch suite {
	case benchv1.SuiteIMB:
		return imb.Parse(out)
	case benchv1.SuiteIOR:
		return ior.Parse(out)
	}
	return osu.Parse(out)
}

// sizeOf is a sample's size as the status keys it: the message size, for
// IOR the transfer size.
func sizeOf(s results.Sample) string {
	if size, ok := s.Labels[results.LabelMsgSize]; ok {
		return size
	}
	return s.Labels["transfer_size"]
}

// checkMPIFigures compares every point of the status with the median, min
// and max over the launcher logs' samples of its test, metric and size.
func checkMPIFigures(t *testing.T, b *benchv1.MPIBenchmark, samples []results.Sample) {
	t.Helper()
	values := map[string][]float64{}
	for _, s := range samples {
		k := s.Test + " " + s.Metric + " " + sizeOf(s)
		values[k] = append(values[k], s.Value)
	}
	points := 0
	for _, r := range b.Status.Results {
		for _, p := range r.Points {
			k := fmt.Sprintf("%s %s %d", r.Test, r.Metric, p.Size)
			want := results.Compute(values[k])
			if want.N == 0 || p.Median != want.Median || p.Min != want.Min || p.Max != want.Max || int(p.N) != want.N {
				t.Errorf("%s: status median %v min %v max %v n %d; the launcher logs give %v %v %v n %d",
					k, p.Median, p.Min, p.Max, p.N, want.Median, want.Min, want.Max, want.N)
			}
			points++
		}
	}
	if points == 0 {
		t.Fatalf("%s has no figures in its status", b.Name)
	}
	t.Logf("%d status points equal the launcher logs' (latency %v µs at %v B, peak %v MB/s)", points,
		deref(b.Status.Summary.LatencyMicroseconds), deref(b.Status.Summary.LatencyMessageSize), deref(b.Status.Summary.PeakBandwidthMBps))
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// existingPool is a BenchmarkPool named name over the real nodes, deleted
// (untainting them) when the test ends.
func existingPool(t *testing.T, name string) {
	t.Helper()
	pool := &benchv1.BenchmarkPool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkPoolSpec{
			Provider: benchv1.ProviderExisting,
			Existing: &benchv1.ExistingPoolSpec{NodeSelector: map[string]string{"benchwright.io/real-node": "true"}},
		},
	}
	if err := k8s.Create(ctx(), pool); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k8s.Delete(ctx(), pool)
		util.WaitFor(t, time.Minute, "BenchmarkPool "+name+" gone", func() (bool, string) {
			err := k8s.Get(ctx(), client.ObjectKeyFromObject(pool), pool)
			return err != nil, "still there"
		})
	})
}
