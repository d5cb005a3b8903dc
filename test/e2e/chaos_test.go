//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/crashpoint"
	"github.com/benchwright/benchwright/test/util"
)

// TestChaos (make chaos) runs E2E_CHAOS_BENCHMARKS (50) benchmarks,
// StorageBenchmarks and MPIBenchmarks mixed, several repetitions each,
// spread over three one-node BenchmarkPools and the nodes outside them,
// while the manager is SIGKILLed E2E_CHAOS_KILLS (10) times and restarted,
// and kube-apiserver is restarted once. The kills land at the manager's
// crash points (internal/crashpoint): a child just created, a repetition
// collected, a status about to be written, samples half uploaded. Which
// point when is drawn from E2E_CHAOS_SEED (printed; set it to replay a run).
//
// In the end every benchmark must have Succeeded exactly once; each Job and
// MPIJob of each repetition's attempt must have been created once (the API
// server's audit log: the dev cluster is created with AUDIT=1); the status
// and the artifact store must hold every repetition once; and no child may
// be left whose owner is gone or that belongs to no repetition it ran.
func TestChaos(t *testing.T) {
	if os.Getenv("E2E_CHAOS") == "" {
		t.Skip("E2E_CHAOS is not set (make chaos sets it)")
	}
	if env["AUDIT_LOG"] == "" {
		t.Fatal("the dev cluster has no audit log: it must be created with AUDIT=1 (hack/dev-cluster.sh down, then AUDIT=1 hack/dev-cluster.sh up)")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("E2E_CHAOS_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("E2E_CHAOS_SEED=%q: %v", s, err)
		}
	}
	t.Logf("chaos: seed %d (E2E_CHAOS_SEED=%d replays the schedule)", seed, seed)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("chaos: failed with seed %d (E2E_CHAOS_SEED=%d replays the schedule)", seed, seed)
		}
	})
	rng := rand.New(rand.NewPCG(seed, 0))
	nBench, nKills := envInt(t, "E2E_CHAOS_BENCHMARKS", 50), envInt(t, "E2E_CHAOS_KILLS", 10)
	timeout := time.Duration(envInt(t, "E2E_CHAOS_TIMEOUT", 420)) * time.Second
	ctx := context.Background()

	points, err := os.MkdirTemp(env["DEV_CLUSTER_DIR"], "crashpoints-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(points) })
	m := &managerProc{dir: env["DEV_CLUSTER_DIR"], points: points}
	m.restart(t) // with the crash points
	t.Cleanup(func() {
		m.points = "" // leave the dev cluster's manager as it was
		m.restart(t)
	})

	ns := newNamespace(t)
	pools := chaosPools(t, 3)
	benches := chaosBenchmarks(t, ns, pools, nBench)
	began := time.Now()
	for _, b := range benches {
		if err := k8s.Create(ctx, b.object()); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("chaos: created %d benchmarks in %s", len(benches), ns)

	done := make(chan struct{})
	var st chaosStats
	plan := chaosPlan(rng, nKills)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		st = runChaos(t, rng, m, plan, done)
	}()
	waitAllFinished(t, ns, benches, timeout)
	close(done)
	<-ran
	t.Logf("chaos: all finished %s after creation", time.Since(began).Round(time.Second))

	c := checkChaos(t, ns, benches, st.apiDown)
	fmt.Printf("\nbenchwright chaos (seed %d): %d benchmarks, %d repetitions, in %s\n", seed, len(benches), c.repetitions, time.Since(began).Round(time.Second))
	fmt.Printf("kills %d (%s), manager restarts %d, kube-apiserver restarts %d\n", st.kills, st.byPoint(), st.restarts, st.apiRestarts)
	fmt.Printf("duplicates %d, lost repetitions %d, leaked children %d, stray store files %d, retries %d, pool overlaps %d\n\n",
		c.duplicates, c.lost, c.leaked, c.stray, c.retries, c.overlaps)
	if st.kills != nKills {
		t.Errorf("%d kills, want %d", st.kills, nKills)
	}
	if st.apiRestarts != 1 {
		t.Errorf("%d kube-apiserver restarts, want 1", st.apiRestarts)
	}
	checkLogServer(t)
}

// managerProc kills and restarts the dev cluster's manager.
type managerProc struct {
	dir string
	// points is the crash points' directory the manager is started with
	// ("" for none).
	points string
}

func (m *managerProc) pid() int {
	data, err := os.ReadFile(filepath.Join(m.dir, "manager.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// kill SIGKILLs the manager and waits until it is gone.
func (m *managerProc) kill(t *testing.T) {
	pid := m.pid()
	if pid == 0 {
		t.Fatal("no manager pid")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", pid, err)
	}
	// A loaded machine can take seconds to tear down a killed process, and
	// until its parent reaps it a dead one is a zombie: dead either way.
	for range 1500 {
		if gone(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the manager (pid %d) did not die within 30s of SIGKILL", pid)
}

// gone reports whether pid has exited: no such process, or a zombie.
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	// "pid (comm) S ...": the state follows the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); err == nil && i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z' || stat[i+2] == 'X'
	}
	return false
}

// restart runs hack/dev-cluster.sh restart-manager, with the crash points
// if set.
func (m *managerProc) restart(t *testing.T) {
	cmd := exec.Command(filepath.Join(util.RepoRoot(), "hack", "dev-cluster.sh"), "restart-manager")
	cmd.Env = os.Environ()
	if m.points != "" {
		cmd.Env = append(cmd.Env, crashpoint.EnvVar+"="+m.points)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("restart-manager: %v\n%s", err, out)
	}
}

func restartAPIServer(t *testing.T) {
	cmd := exec.Command(filepath.Join(util.RepoRoot(), "hack", "dev-cluster.sh"), "restart-apiserver")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("restart-apiserver: %v\n%s", err, tail(string(out), 30))
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// chaosStep is one kill: where it is aimed, how long to wait before arming
// it and before restarting, and whether kube-apiserver restarts after it.
type chaosStep struct {
	point           string
	before, pause   time.Duration
	restartAPIAfter bool
}

var chaosPoints = []string{crashpoint.ChildCreated, crashpoint.Collected, crashpoint.StatusWrite, crashpoint.Uploading}

// chaosPlan draws n kills: each point at least twice when n allows, the
// rest at random, shuffled; kube-apiserver restarts after one of them.
func chaosPlan(rng *rand.Rand, n int) []chaosStep {
	var pts []string
	for i := range n {
		if i < 2*len(chaosPoints) {
			pts = append(pts, chaosPoints[i%len(chaosPoints)])
		} else {
			pts = append(pts, chaosPoints[rng.IntN(len(chaosPoints))])
		}
	}
	rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	api := rng.IntN(max(n, 1))
	steps := make([]chaosStep, n)
	for i, p := range pts {
		steps[i] = chaosStep{
			point:           p,
			before:          time.Duration(500+rng.IntN(3500)) * time.Millisecond,
			pause:           time.Duration(rng.IntN(1500)) * time.Millisecond,
			restartAPIAfter: i == api,
		}
	}
	return steps
}

type chaosStats struct {
	kills, restarts, apiRestarts int
	// apiDown is when kube-apiserver was restarting.
	apiDown window
	// hit counts the kills by the point they landed at; "unaimed" when the
	// armed point was not reached in time.
	hit map[string]int
}

func (s chaosStats) byPoint() string {
	var parts []string
	for _, p := range append(chaosPoints, "unaimed") {
		if s.hit[p] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", p, s.hit[p]))
		}
	}
	return strings.Join(parts, ", ")
}

// reachWait is how long an armed point may take to be reached before the
// kill lands wherever the manager is.
const reachWait = 30 * time.Second

// runChaos kills and restarts the manager as plan says, until done.
func runChaos(t *testing.T, rng *rand.Rand, m *managerProc, plan []chaosStep, done <-chan struct{}) chaosStats {
	st := chaosStats{hit: map[string]int{}}
	for i, step := range plan {
		select {
		case <-done:
			t.Logf("chaos: the benchmarks finished before kill %d", i+1)
			return st
		case <-time.After(step.before):
		}
		arm, at := filepath.Join(m.points, "arm-"+step.point), filepath.Join(m.points, "at-"+step.point)
		_ = os.Remove(at)
		if err := os.WriteFile(arm, nil, 0o644); err != nil {
			t.Error(err)
			return st
		}
		landed := "unaimed"
		deadline := time.Now().Add(reachWait)
	wait:
		for time.Now().Before(deadline) {
			if _, err := os.Stat(at); err == nil {
				landed = step.point
				break
			}
			select {
			case <-done:
				break wait
			case <-time.After(5 * time.Millisecond):
			}
		}
		if landed == "unaimed" {
			_ = os.Remove(arm)
			time.Sleep(time.Duration(rng.IntN(1000)) * time.Millisecond)
		}
		m.kill(t)
		st.kills++
		st.hit[landed]++
		_ = os.Remove(at)
		t.Logf("chaos: kill %d at %s (aimed at %s)", i+1, landed, step.point)
		time.Sleep(step.pause)
		if step.restartAPIAfter {
			began := time.Now()
			restartAPIServer(t)
			st.apiRestarts++
			st.apiDown = window{began, time.Now()}
			t.Logf("chaos: kube-apiserver restarted in %s", time.Since(began).Round(100*time.Millisecond))
		}
		m.restart(t)
		st.restarts++
	}
	return st
}

// chaosPools makes n BenchmarkPools of one node each (the first kwok nodes
// by name) and waits until they are Ready; the other nodes run the
// benchmarks without a pool.
func chaosPools(t *testing.T, n int) []string {
	t.Helper()
	ctx := context.Background()
	var nodes []string
	for _, names := range kwokNodes(t) {
		nodes = append(nodes, names...)
	}
	sort.Strings(nodes)
	if len(nodes) < n+2 {
		t.Fatalf("%d kwok nodes: the chaos test wants %d (NODES)", len(nodes), n+2)
	}
	var names []string
	for i := range n {
		pool := &benchv1.BenchmarkPool{}
		util.LoadExample(t, "pools/existing.yaml", pool)
		pool.Name = fmt.Sprintf("chaos-%d-%s", i, strings.ToLower(strconv.FormatInt(time.Now().UnixNano()%1e6, 36)))
		pool.Spec.Existing.NodeSelector = map[string]string{"kubernetes.io/hostname": nodes[i]}
		if err := k8s.Create(ctx, pool); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(context.Background(), pool) })
		names = append(names, pool.Name)
	}
	for _, name := range names {
		pool := &benchv1.BenchmarkPool{}
		util.WaitFor(t, time.Minute, "pool "+name+" Ready", func() (bool, string) {
			if err := k8s.Get(ctx, client.ObjectKey{Name: name}, pool); err != nil {
				return false, err.Error()
			}
			return meta.IsStatusConditionTrue(pool.Status.Conditions, benchv1.PoolConditionReady), conditions(pool.Status.Conditions)
		})
	}
	return names
}

// chaosBenchmarks are n quickstart-like benchmarks: three in five
// StorageBenchmarks (fio; every fourth of them on two nodes), the rest
// MPIBenchmarks (OSU); three repetitions each; one in four without a pool,
// the others on the pools in turn.
func chaosBenchmarks(t *testing.T, ns string, pools []string, n int) []benchmark {
	t.Helper()
	sb := &benchv1.StorageBenchmark{}
	util.LoadExample(t, "quickstart/fio.yaml", sb)
	sb.Spec.Expectations = nil
	mb := &benchv1.MPIBenchmark{}
	util.LoadExample(t, "quickstart/osu-latency.yaml", mb)
	var out []benchmark
	for i := range n {
		pool := ""
		if i%4 != 3 {
			pool = pools[i%len(pools)]
		}
		place := func(p *benchv1.Placement) {
			if pool != "" {
				p.Pool, p.NodeSelector = benchv1.PoolName(pool), nil
			}
		}
		if i%5 < 3 {
			b := sb.DeepCopy()
			b.Name, b.Namespace = fmt.Sprintf("fio-%02d", i), ns
			b.Spec.Repetitions = 3
			if pool == "" && i%2 == 1 {
				b.Spec.Nodes = 2
			}
			place(&b.Spec.Placement)
			out = append(out, storageBench{b})
			continue
		}
		b := mb.DeepCopy()
		b.Name, b.Namespace = fmt.Sprintf("osu-%02d", i), ns
		b.Spec.Repetitions = 3
		place(&b.Spec.Placement)
		out = append(out, mpiBench{b})
	}
	return out
}

// waitAllFinished waits until every benchmark Succeeded or Failed.
func waitAllFinished(t *testing.T, ns string, benches []benchmark, timeout time.Duration) {
	t.Helper()
	util.WaitFor(t, timeout, fmt.Sprintf("%d benchmarks finished", len(benches)), func() (bool, string) {
		ok, failed, err := countSucceeded(context.Background(), k8s, ns)
		if err != nil {
			return false, err.Error()
		}
		n := ok["StorageBenchmark"] + ok["MPIBenchmark"]
		return n+len(failed) == len(benches), fmt.Sprintf("%d Succeeded, %d Failed %v", n, len(failed), failed)
	})
}
