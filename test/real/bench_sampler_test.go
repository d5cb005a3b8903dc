//go:build real

package real

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
)

// samplerPairs is PAIRS, else def.
func samplerPairs(def int) int {
	if p, err := strconv.Atoi(os.Getenv("PAIRS")); err == nil && p > 0 {
		return p
	}
	return def
}

// alternated runs pair i with the sampler on and off, on first in even
// pairs, and says in which order.
func alternated[T any](i int, run func(on bool) T) (on, off T, order string) {
	if i%2 == 0 {
		on = run(true)
		return on, run(false), "sampler on first"
	}
	off = run(false)
	return run(true), off, "sampler off first"
}

// BenchmarkFioSamplerOnVsOff measures what the sampler sidecar costs fio:
// PAIRS (default 5) pairs of the quickstart's fio jobs through a
// StorageBenchmark on one node, with spec.monitoring on and off, in
// alternating order. It reports the median ratio of the first job's read
// IOPS, on / off (the target: at least 0.99). The unmonitored pod
// has no requests (a StorageBenchmark gives its pods none), so it is
// BestEffort where the monitored one is Burstable: under contention the
// pair measures the QoS class too. BenchmarkFioSamplerPausedVsRunning has
// one pod for both sides.
//
//	make bench-real-sampler
func BenchmarkFioSamplerOnVsOff(b *testing.B) {
	node := nodes()[0]
	ns := newNamespace(b)
	var ratios []float64
	for i := range samplerPairs(5) {
		run := func(on bool) float64 {
			name := fmt.Sprintf("off-%d", i+1)
			if on {
				name = fmt.Sprintf("on-%d", i+1)
			}
			iops, _, _ := runQuickstartOnce(b, ns, node, name, func(sb *benchv1.StorageBenchmark) { sb.Spec.Monitoring.Enabled = ptr.To(on) })
			return iops
		}
		on, off, order := alternated(i, run)
		ratios = append(ratios, on/off)
		fmt.Printf("pair %d (%s): %s read IOPS with the sampler %.0f, without %.0f; ratio %.4f\n", i+1, order, quickstartJob, on, off, on/off)
	}
	b.ReportMetric(median(ratios), "iops-ratio")
	fmt.Printf("fio %s with / without the sampler: median IOPS ratio %.4f over %d pairs (%s)\n", quickstartJob, median(ratios), len(ratios), fmtAll(ratios))
}

// BenchmarkOSUSamplerOnVsOff measures what the samplers of the launcher and
// the workers cost OSU: PAIRS (default 5) pairs of the quickstart's
// osu_latency and osu_bw through an MPIBenchmark, with spec.monitoring on
// and off, alternated (LAYOUT=off|on, MPI=openmpi|mpich as in
// bench-real-mpi). Unmonitored workers get the sampler's requests, so both
// sides' workers are in one QoS class. It reports the median 8-byte latency ratio, on / off
// (the target: at most 1.01), and the peak bandwidth's.
//
//	make bench-real-sampler
func BenchmarkOSUSamplerOnVsOff(b *testing.B) {
	spec := osuPairSpec(b, os.Getenv("LAYOUT"), os.Getenv("MPI"))
	onNS, offNS := newNamespace(b), newNamespace(b)
	var lat, bw []float64
	for i := range samplerPairs(5) {
		run := func(on bool) osuRun {
			s := spec.DeepCopy()
			s.Monitoring.Enabled = ptr.To(on)
			if !on && s.MPI.Resources == nil {
				// The sampler's requests make a monitored worker's pod
				// Burstable; without them it would be BestEffort, with the
				// least CPU weight, and the pair would measure the QoS
				// class (as bench-real's bare fio pod once did). The
				// launcher's resources are not in the spec: it runs no rank.
				s.MPI.Resources = &corev1.ResourceRequirements{Requests: children.SamplerResources.Requests.DeepCopy()}
			}
			ns := offNS
			if on {
				ns = onNS
			}
			return osuThroughBenchmark(b, ns, s, i, func(*mpiv2.MPIJob) {})
		}
		on, off, order := alternated(i, run)
		lat = append(lat, on.lat8/off.lat8)
		bw = append(bw, on.peak/off.peak)
		fmt.Printf("pair %d (%s): 8 B latency with the sampler %.2f µs, without %.2f µs (ratio %.4f); peak %.0f and %.0f MB/s (ratio %.4f)\n",
			i+1, order, on.lat8, off.lat8, lat[i], on.peak, off.peak, bw[i])
	}
	b.ReportMetric(median(lat), "latency-ratio")
	b.ReportMetric(median(bw), "bw-ratio")
	fmt.Printf("%s, %s: OSU with / without the samplers over %d pairs: 8 B latency median ratio %.4f (%s), peak bandwidth %.4f (%s)\n",
		spec.MPI.Implementation, describeOSULayout(spec), len(lat), median(lat), fmtAll(lat), median(bw), fmtAll(bw))
}
