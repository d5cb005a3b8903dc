//go:build real

package real

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
)

// The quickstart's fabtests pair on one real node: server on CPU 0, client
// on CPU 1, each pinned with taskset in its container.
func TestQuickstartFabtestsPair(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	b := &benchv1.NetworkBenchmark{}
	util.LoadExample(t, "quickstart/fabtests-pair.yaml", b)
	b.Namespace = newNamespace(t)
	b.Spec.Repetitions = 2
	runNetworkBenchmark(t, b, 1)
}

// Seed 002 on the two real nodes: from the first CPU of chiplet 0 of one
// node to every chiplet of the other, fi_msg_bw, fi_rma_bw and
// fi_rdm_tagged_bw over the sockets provider, on the nodes' network. This
// machine has one chiplet (one L3, one socket): the inter-socket scope has
// no pair here, and the intra-socket one only chiplet 0 to itself (CPU 0
// to CPU 1, which the S2 campaign runs). The test keeps interNode, and
// fewer iterations and repetitions.
func TestSeed2FabtestsInterNode(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	b := &benchv1.NetworkBenchmark{}
	util.LoadExample(t, "seeds/s2-fabtests-chiplets.yaml", b)
	existingPool(t, string(b.Spec.Pool))
	b.Namespace = newNamespace(t)
	b.Spec.Nodes = 2
	b.Spec.Pairs.Scopes = []benchv1.NetworkScope{benchv1.ScopeInterNode}
	b.Spec.Fabtests.Iterations = ptr.To[int32](100)
	b.Spec.Fabtests.WarmupIterations = ptr.To[int32](100)
	b.Spec.Repetitions, b.Spec.WarmupRepetitions = 2, 0
	runNetworkBenchmark(t, b, 2)
}

// Seed 002's iperf3 view on the two real nodes, over the pod network.
func TestSeed2IPerf3InterNode(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	b := &benchv1.NetworkBenchmark{}
	util.LoadExample(t, "seeds/s2-iperf3-pairs.yaml", b)
	existingPool(t, string(b.Spec.Pool))
	b.Namespace = newNamespace(t)
	b.Spec.IPerf3.Seconds, b.Spec.IPerf3.OmitSeconds = 2, 1
	b.Spec.Repetitions = 2
	runNetworkBenchmark(t, b, 2)
}

// runNetworkBenchmark creates b, waits for it, and checks what a user gets:
// every pair's figures in the status equal to the stored raw reports', the
// ends pinned where the spec says, the nodes' topology, kubectl get, and
// the report.
func runNetworkBenchmark(t *testing.T, b *benchv1.NetworkBenchmark, nodeCount int) {
	t.Helper()
	began := time.Now()
	if err := k8s.Create(ctx(), b); err != nil {
		t.Fatal(err)
	}
	waitSucceeded(t, b, &b.Status.BenchmarkStatusCommon, 8*time.Minute)
	t.Logf("kubectl apply to Succeeded: %s", time.Since(began).Round(100*time.Millisecond))

	var reports []*netbench.Report
	input := netbench.InputOf(&b.Spec)
	for name, log := range rawLogs(t, b.Status.ArtifactURI) {
		r, err := netbench.ReadReport(log)
		if err != nil {
			t.Fatalf("stored log %s: %v", name, err)
		}
		for _, s := range r.Steps {
			checkPinned(t, name, s)
		}
		reports = append(reports, r)
	}
	if want := int(b.Spec.Repetitions) * nodeCount; len(reports) != want {
		t.Errorf("%d stored reports, want %d (repetitions x nodes)", len(reports), want)
	}
	checkMonitor(t, b.Status.ArtifactURI, int(b.Spec.Repetitions)*nodeCount, nil, "")
	// The status's medians are the stored outputs' medians.
	samples, err := netbench.Samples(input, reports)
	if err != nil {
		t.Fatal(err)
	}
	peaks := peakMedians(samples)
	if len(b.Status.Pairs) == 0 {
		t.Fatal("no pair in the status")
	}
	for _, p := range b.Status.Pairs {
		want, ok := peaks[p.Test+" "+p.Pair]
		if !ok || p.PeakBandwidth == nil {
			t.Errorf("status pair %+v has no stored counterpart (stored: %v)", p, peaks)
			continue
		}
		if got := p.PeakBandwidth.Median / factorOf(input); !closeTo(got, want) {
			t.Errorf("%s %s: status peak %.3f, stored outputs %.3f", p.Test, p.Pair, got, want)
		}
		if nodeCount > 1 && p.Scope != "interNode" {
			t.Errorf("pair %s has scope %s, want interNode", p.Pair, p.Scope)
		}
	}
	if len(b.Status.Topology) != nodeCount {
		t.Errorf("topology of %d nodes, want %d: %+v", len(b.Status.Topology), nodeCount, b.Status.Topology)
	}
	for _, n := range b.Status.Topology {
		if n.CPUs < 2 || n.Chiplets < 1 || n.AllowedCPUs == "" {
			t.Errorf("node topology %+v", n)
		}
	}
	out := kc.Run(t, "get", "networkbenchmarks", "-n", b.Namespace, b.Name, "-o", "wide")
	t.Logf("kubectl get networkbenchmarks -o wide:\n%s", out)
	row := util.Table(t, out)[0]
	reps := strconv.Itoa(int(b.Spec.Repetitions))
	if row["STATE"] != "Succeeded" || row["PROGRESS"] != reps+"/"+reps || row["PEAK(MB/S)"] == "" || row["SLOWEST"] == "" {
		t.Errorf("kubectl get: %v", row)
	}
	checkReport(t, b.Name, storeDir(t, b.Status.ArtifactURI))
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// checkPinned: each end ran under taskset on its pair's CPU.
func checkPinned(t *testing.T, log string, s netbench.StepReport) {
	t.Helper()
	cpu := s.Pair.Client.CPU
	if s.Role == netbench.RoleServer {
		cpu = s.Pair.Server.CPU
	}
	if len(s.Argv) < 3 || s.Argv[0] != "taskset" || s.Argv[2] != strconv.Itoa(cpu) {
		t.Errorf("%s: step %d (%s) ran %q, not pinned to CPU %d", log, s.Index, s.Role, strings.Join(s.Argv, " "), cpu)
	}
}

// peakMedians is, per test and pair, the highest median over repetitions of
// the bandwidth at one message size.
func peakMedians(samples []results.Sample) map[string]float64 {
	values := map[string][]float64{}
	for _, s := range samples {
		if s.Metric != "bandwidth" {
			continue
		}
		k := s.Test + " " + s.Labels[netbench.LabelPair] + "@" + s.Labels[results.LabelMsgSize]
		values[k] = append(values[k], s.Value)
	}
	out := map[string]float64{}
	for k, v := range values {
		key, _, _ := strings.Cut(k, "@")
		if m := results.Compute(v).Median; m > out[key] {
			out[key] = m
		}
	}
	return out
}

// factorOf converts the status's MB/s back to the tool's unit.
func factorOf(in netbench.Input) float64 {
	if in.IPerf3 != nil {
		return 125
	}
	return 1
}

func closeTo(a, b float64) bool {
	d := a - b
	return d < 1e-6*max(1, b) && d > -1e-6*max(1, b) || fmt.Sprintf("%.6g", a) == fmt.Sprintf("%.6g", b)
}
