//go:build real

package real

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Seed 002's OSU pair: osu_bw between two ranks pinned to chosen CPUs of one
// node, over the node's own network (hostNetwork). The CPUs are this
// machine's two (0 and 1) instead of the first of two chiplets (0 and 8),
// 1 warm-up and 3 counted repetitions instead of 1 and 10. Each rank's CPU is
// read from the process's own affinity (/proc/PID/status, Cpus_allowed_list,
// as the kernel holds it) while it runs, not from mpirun's report.
func TestSeed2PinnedPair(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	ns := newNamespace(t)
	benches := seedBenchmarks(t, "seeds/s2-osu-chiplets.yaml")
	if len(benches) != 1 {
		t.Fatalf("the example has %d MPIBenchmarks, want the pinned pair", len(benches))
	}
	b := benches[0]
	if b.Spec.Layout.CPUBinding == nil || b.Spec.Layout.CPUBinding.Policy != benchv1.BindExplicit || !b.Spec.Layout.HostNetwork {
		t.Fatalf("the example no longer pins its ranks on the host network: %+v", b.Spec.Layout)
	}
	b.Namespace = ns
	b.Spec.NodeSelector = map[string]string{"node.kubernetes.io/instance-type": "n2-standard-2"}
	b.Spec.Layout.CPUBinding.CPUs = []int32{0, 1}
	b.Spec.MessageSizes.Max = 1 << 20
	b.Spec.Repetitions, b.Spec.WarmupRepetitions = 4, 1

	seen := watchAffinity(t, "osu_bw")
	checkSpread(t, runMPIBenchmark(t, b), 1)
	affinity := seen()
	t.Logf("osu_bw processes seen, by PID: CPUs allowed %v", affinity)
	// Every repetition's two ranks: one on CPU 0, one on CPU 1, nothing else.
	count := map[string]int{}
	for _, cpus := range affinity {
		count[cpus]++
	}
	if count["0"] < int(b.Spec.Repetitions) || count["1"] < int(b.Spec.Repetitions) || count["0"] != count["1"] || len(count) != 2 {
		t.Errorf("ranks' CPUs %v (count by CPU list %v); want one rank on CPU 0 and one on CPU 1 in each of %d repetitions",
			affinity, count, b.Spec.Repetitions)
	}
}

// watchAffinity polls this machine's processes named comm (every node's pods
// are processes here) until the test ends, and returns a function that gives
// each one's Cpus_allowed_list by PID.
func watchAffinity(t *testing.T, comm string) func() map[string]string {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]string{}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			dirs, _ := filepath.Glob("/proc/[0-9]*")
			for _, dir := range dirs {
				name, err := os.ReadFile(filepath.Join(dir, "comm"))
				if err != nil || strings.TrimSpace(string(name)) != comm {
					continue
				}
				status, err := os.ReadFile(filepath.Join(dir, "status"))
				if err != nil {
					continue
				}
				for line := range strings.Lines(string(status)) {
					if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
						mu.Lock()
						seen[filepath.Base(dir)] = strings.TrimSpace(v)
						mu.Unlock()
					}
				}
			}
		}
	}()
	var once sync.Once
	finish := func() { once.Do(func() { close(stop); <-done }) }
	t.Cleanup(finish)
	return func() map[string]string {
		finish()
		mu.Lock()
		defer mu.Unlock()
		out := map[string]string{}
		for pid, cpus := range seen {
			out[pid] = cpus
		}
		return out
	}
}
