package integration

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
	"github.com/benchwright/benchwright/test/util"
)

// startGKEControllerOn runs the BenchmarkPool controller against the fake,
// polling every 50 ms; tweak changes the reconciler's settings.
func startGKEControllerOn(t *testing.T, fake *fakegke.Server, tweak func(*benchmarkpool.Reconciler)) {
	t.Helper()
	provider, err := gke.New(context.Background(), fake.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = provider.Close() })
	startController(t, testNamespace(t, "gke-faults-"), func(mgr ctrl.Manager, _ *artifacts.Store) error {
		r := &benchmarkpool.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
			Recorder: mgr.GetEventRecorderFor("benchmarkpool-controller"),
			GKE:      provider, GKECluster: testCluster, PollInterval: 50 * time.Millisecond, RetryBackoff: 50 * time.Millisecond,
		}
		tweak(r)
		return r.SetupWithManager(mgr)
	}, func(context.Context) {})
}

// faultSeedEnv replays a run of TestGKEPoolsUnderFiftyFaults with its seed.
const faultSeedEnv = "BENCHWRIGHT_GKE_FAULT_SEED"

// The paces of the fault test: operations take opDelay, a slow one
// slowOperation, past the controller's operationTimeout; a call that hangs is
// cut at callTimeout.
const (
	opDelay          = 100 * time.Millisecond
	slowOperation    = 2 * time.Second
	operationTimeout = 600 * time.Millisecond
	callTimeout      = time.Second
)

// fault is one injected failure and what the pool must say of it.
type fault struct {
	kind    string
	failure fakegke.Failure
	// reason and text are the condition's reason and a part of its message.
	reason, text string
}

// The kinds of faults, and how many of each the test injects (50 in all).
var faultKinds = []struct {
	kind  string
	count int
	// terminal: the pool's last create (adopted, or failed for good).
	terminal bool
	pick     func(*rand.Rand) fault
}{
	{"create error", 9, false, func(r *rand.Rand) fault {
		f := []fakegke.Failure{fakegke.Unavailable(), fakegke.InternalError(), {Code: codes.Aborted, Message: "The operation was aborted, please try again."}}[r.Intn(3)]
		return fault{failure: f, reason: benchv1.ReasonProviderError, text: f.Message}
	}},
	{"operation ERROR", 7, false, func(*rand.Rand) fault {
		return fault{failure: fakegke.InternalError().AsAsync(), reason: benchv1.ReasonProviderError, text: "Internal error encountered"}
	}},
	{"stockout", 9, false, func(r *rand.Rand) fault {
		f := fakegke.Stockout(testCluster.Project, testCluster.Location)
		if r.Intn(2) == 0 {
			f = fakegke.StockoutDuringProvisioning(testCluster.Project, testCluster.Location, "gke-bench-instance-0001")
		}
		return fault{failure: f, reason: benchv1.ReasonStockout, text: "does not have enough resources available"}
	}},
	{"quota", 4, true, func(r *rand.Rand) fault {
		switch r.Intn(3) {
		case 0:
			return fault{failure: fakegke.QuotaExceeded("C3_CPUS", 24, "us-central1"), reason: benchv1.ReasonQuotaExceeded, text: "Quota 'C3_CPUS' exceeded"}
		case 1:
			return fault{failure: fakegke.QuotaExceeded("C3_CPUS", 24, "us-central1").AsAsync(), reason: benchv1.ReasonQuotaExceeded, text: "Quota 'C3_CPUS' exceeded"}
		}
		return fault{failure: fakegke.InsufficientQuota(testCluster.Project, "CPUS", 16, 8, 24), reason: benchv1.ReasonQuotaExceeded, text: "Insufficient regional quota"}
	}},
	// A create GKE answers past the call timeout, or whose operation runs
	// past OperationTimeout.
	{"timeout", 6, true, func(r *rand.Rand) fault {
		if r.Intn(2) == 0 {
			return fault{failure: fakegke.Hang(), reason: benchv1.ReasonProviderError, text: "call timeout"}
		}
		return fault{failure: fakegke.SlowOperation(slowOperation), reason: benchv1.ReasonProviderError, text: "has not finished within"}
	}},
	{"lost answer", 6, true, func(r *rand.Rand) fault {
		f := []fakegke.Failure{fakegke.Unavailable(), fakegke.InternalError()}[r.Intn(2)].LostAnswer()
		return fault{failure: f, reason: benchv1.ReasonProviderError, text: "adopt"}
	}},
	{"failed delete", 9, false, func(r *rand.Rand) fault {
		f := []fakegke.Failure{fakegke.InternalError(), fakegke.InternalError().AsAsync(), fakegke.InternalError().LostAnswer()}[r.Intn(3)]
		return fault{failure: f, reason: benchv1.ReasonProviderError, text: "Internal error encountered"}
	}},
}

// poolPlan is what one pool meets: failures of its creates, in order (the
// last may be terminal), then of its deletes.
type poolPlan struct {
	creates, deletes []fault
	terminal         string // the kind of the terminal fault, if any
}

// wantCreates is how many creates GKE gets for the pool: one per create fault,
// and the one that succeeds unless a terminal fault ended them.
func (p *poolPlan) wantCreates() int {
	if p.terminal != "" {
		return len(p.creates)
	}
	return len(p.creates) + 1
}

// planFaults spreads the faults over the pools, seeded: each pool has at most
// one terminal fault, last; delete faults go to pools whose node pool exists.
func planFaults(rng *rand.Rand, pools int) []*poolPlan {
	plans := make([]*poolPlan, pools)
	for i := range plans {
		plans[i] = &poolPlan{}
	}
	var order []int
	for k, fk := range faultKinds {
		for range fk.count {
			order = append(order, k)
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	// Terminal faults first, one per pool, then the others on the least
	// loaded of two pools picked at random.
	sort.SliceStable(order, func(i, j int) bool { return faultKinds[order[i]].terminal && !faultKinds[order[j]].terminal })
	load := func(p *poolPlan) int { return len(p.creates) + len(p.deletes) }
	for n, k := range order {
		fk := faultKinds[k]
		f := fk.pick(rng)
		f.kind = fk.kind
		switch {
		case fk.terminal:
			p := plans[n] // the terminal faults are fewer than the pools
			p.creates, p.terminal = append(p.creates, f), fk.kind
		case fk.kind == "failed delete":
			var p *poolPlan
			for p == nil || p.terminal == "quota" {
				p = plans[rng.Intn(pools)]
			}
			p.deletes = append(p.deletes, f)
		default:
			p := plans[rng.Intn(pools)]
			if q := plans[rng.Intn(pools)]; load(q) < load(p) {
				p = q
			}
			p.creates = append([]fault{f}, p.creates...) // before a terminal fault
		}
	}
	// A delete whose answer is lost deletes the node pool: it is the last
	// delete fault, and a second one fails its operation instead.
	for _, p := range plans {
		sort.SliceStable(p.deletes, func(i, j int) bool { return !p.deletes[i].failure.Lost && p.deletes[j].failure.Lost })
		for i := range p.deletes[:max(len(p.deletes)-1, 0)] {
			if p.deletes[i].failure.Lost {
				p.deletes[i].failure = fakegke.InternalError().AsAsync()
			}
		}
	}
	return plans
}

// conditionLog keeps every condition a watch saw on the pools, by pool.
type conditionLog struct {
	mu   sync.Mutex
	seen map[string][]metav1.Condition
}

func watchConditions(t *testing.T, prefix string) *conditionLog {
	t.Helper()
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(testContext(t), &benchv1.BenchmarkPoolList{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	log := &conditionLog{seen: map[string][]metav1.Condition{}}
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*benchv1.BenchmarkPool)
			if !ok || !strings.HasPrefix(p.Name, prefix) {
				continue
			}
			log.mu.Lock()
			log.seen[p.Name] = append(log.seen[p.Name], p.Status.Conditions...)
			log.mu.Unlock()
		}
	}()
	return log
}

// messages are the distinct messages of the pool's conditions of that type
// and reason that contain text.
func (l *conditionLog) messages(pool, typ, reason, text string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	distinct := map[string]bool{}
	for _, c := range l.seen[pool] {
		if c.Type != typ || c.Reason != reason || (typ == benchv1.PoolConditionReady && c.Status != metav1.ConditionFalse) {
			continue
		}
		if strings.Contains(strings.ToLower(c.Message), strings.ToLower(text)) {
			distinct[c.Message] = true
		}
	}
	var out []string
	for m := range distinct {
		out = append(out, m)
	}
	return out
}

// 50 failures of every kind GKE has, seeded and mixed over 18 pools, against
// the real API server and the BenchmarkPool controller: each failure shows in
// the pool's conditions with its reason, the pools whose failures pass become
// Ready (a node pool whose create answer was lost adopted, not created twice),
// the others fail with GKE's reason, and deleting the pools leaves no node
// pool and no finalizer.
func TestGKEPoolsUnderFiftyFaults(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv(faultSeedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", faultSeedEnv, s, err)
		}
	}
	t.Logf("fault seed %d (replay with %s=%d)", seed, faultSeedEnv, seed)
	rng := rand.New(rand.NewSource(seed))
	const pools, prefix = 18, "fault-"
	plans := planFaults(rng, pools)
	byPool := map[string]*poolPlan{}
	counts := map[string]int{}
	var names []string
	for i, p := range plans {
		name := fmt.Sprintf("%s%02d", prefix, i)
		names = append(names, name)
		byPool[name] = p
		var kinds []string
		for _, f := range append(append([]fault(nil), p.creates...), p.deletes...) {
			kinds = append(kinds, f.kind)
			counts[f.kind]++
		}
		t.Logf("%s: %s", name, strings.Join(kinds, ", "))
	}
	t.Logf("faults per kind: %v", counts)
	forgetPools(t, names...)

	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(0), fakegke.WithDelay(opDelay))
	// served are the faults GKE returned, by pool, in order.
	var mu sync.Mutex
	served := map[string][]fault{}
	deleting := false
	next := func(pool string, script *[]fault) error {
		if len(*script) == 0 {
			return nil
		}
		f := (*script)[0]
		*script = (*script)[1:]
		served[pool] = append(served[pool], f)
		return f.failure
	}
	creates, deletes := map[string][]fault{}, map[string][]fault{}
	for name, p := range byPool {
		creates[name], deletes[name] = append([]fault(nil), p.creates...), append([]fault(nil), p.deletes...)
	}
	fake.SetInject(func(req *containerpb.CreateNodePoolRequest) error {
		mu.Lock()
		defer mu.Unlock()
		s := creates[req.GetNodePool().GetName()]
		defer func() { creates[req.GetNodePool().GetName()] = s }()
		return next(req.GetNodePool().GetName(), &s)
	})
	fake.SetDeleteInject(func(req *containerpb.DeleteNodePoolRequest) error {
		mu.Lock()
		defer mu.Unlock()
		if !deleting {
			return nil // a failed create's cleanup
		}
		name := req.GetName()[strings.LastIndex(req.GetName(), "/")+1:]
		s := deletes[name]
		defer func() { deletes[name] = s }()
		return next(name, &s)
	})
	startGKEControllerOn(t, fake, func(r *benchmarkpool.Reconciler) {
		r.RetryBackoff, r.CallTimeout, r.OperationTimeout = 20*time.Millisecond, callTimeout, operationTimeout
	})
	log := watchConditions(t, prefix)

	ctx := context.Background()
	start := time.Now()
	for name := range byPool {
		p := gkePool(name, "c3-highcpu-44", 1)
		p.Spec.GKE.NodeLocations, p.Spec.GKE.CompactPlacement = []string{testCluster.Location}, nil
		if err := k8sClient.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// GKE's nodes join once their node pool runs; a pool whose failures
	// pass becomes Ready, one with a quota fails with it.
	joined := map[string]bool{}
	util.WaitFor(t, 120*time.Second, "every pool Ready, or Failed for its quota", func() (bool, string) {
		for _, np := range fake.NodePools(testCluster.Parent()) {
			if np.GetStatus() == containerpb.NodePool_RUNNING && !joined[np.GetName()] {
				labelledNode(t, np.GetName()+"-node-0", map[string]string{benchv1.PoolLabel: np.GetName()}, true)
				joined[np.GetName()] = true
			}
		}
		var waiting []string
		for name, plan := range byPool {
			p := getPool(t, name)
			ready := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
			switch {
			case plan.terminal == "quota" && p.Status.State == "Failed" && ready != nil && ready.Reason == benchv1.ReasonQuotaExceeded:
			case plan.terminal != "quota" && p.Status.State == "Ready":
			default:
				waiting = append(waiting, fmt.Sprintf("%s %s %v", name, p.Status.State, ready))
			}
		}
		sort.Strings(waiting)
		return len(waiting) == 0, strings.Join(waiting, "\n")
	})
	t.Logf("every pool settled after %s", time.Since(start).Round(time.Millisecond))

	// Exactly the planned creates: a node pool whose answer was lost is
	// adopted, never created a second time. (Creates GKE refused for its
	// concurrent operations quota made nothing and are not counted.)
	perPool := map[string]int{}
	for _, r := range fake.CreatesTaken() {
		perPool[r.GetNodePool().GetName()]++
	}
	for name, plan := range byPool {
		if perPool[name] != plan.wantCreates() {
			t.Errorf("%s: GKE got %d creates, want %d (faults %v)", name, perPool[name], plan.wantCreates(), kindsOf(plan.creates))
		}
	}
	if n := len(fake.NodePools(testCluster.Parent())); n != len(joined) {
		t.Errorf("%d node pools, want %d: %v", n, len(joined), fake.NodePools(testCluster.Parent()))
	}

	mu.Lock()
	deleting = true
	mu.Unlock()
	start = time.Now()
	for name := range byPool {
		if err := k8sClient.Delete(ctx, &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	util.WaitFor(t, 120*time.Second, "every pool gone (finalizers removed) and no node pool left", func() (bool, string) {
		var left []string
		for name := range byPool {
			var p benchv1.BenchmarkPool
			if err := k8sClient.Get(ctx, client.ObjectKey{Name: name}, &p); !apierrors.IsNotFound(err) {
				left = append(left, fmt.Sprintf("%s finalizers %v %s", name, p.Finalizers, pretty(p.Status.Conditions)))
			}
		}
		nps := fake.NodePools(testCluster.Parent())
		return len(left) == 0 && len(nps) == 0, fmt.Sprintf("%d node pools; %s", len(nps), strings.Join(left, "\n"))
	})
	t.Logf("every pool deleted after %s", time.Since(start).Round(time.Millisecond))

	// Every planned fault was served, and each shows in the pool's
	// conditions: Ready for the creates, Deleting for the deletes.
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for name, plan := range byPool {
		total += len(served[name])
		if len(creates[name]) > 0 || len(deletes[name]) > 0 {
			t.Errorf("%s: faults never served: creates %v, deletes %v", name, kindsOf(creates[name]), kindsOf(deletes[name]))
		}
		check := func(typ string, faults []fault) {
			want := map[[2]string]int{}
			for _, f := range faults {
				want[[2]string{f.reason, f.text}]++
			}
			for k, n := range want {
				got := log.messages(name, typ, k[0], k[1])
				if typ == benchv1.PoolConditionDeleting {
					n = 1 // the same message again is no new condition
				}
				if len(got) < n {
					t.Errorf("%s: %d %s conditions with reason %s and %q, want %d; seen: %s", name, len(got), typ, k[0], k[1], n, log.describe(name, typ))
				}
			}
		}
		check(benchv1.PoolConditionReady, plan.creates)
		check(benchv1.PoolConditionDeleting, plan.deletes)
	}
	if total != 50 {
		t.Errorf("%d faults served, want 50", total)
	}
}

func kindsOf(faults []fault) []string {
	var out []string
	for _, f := range faults {
		out = append(out, f.kind)
	}
	return out
}

// describe lists the distinct conditions of a type seen on the pool.
func (l *conditionLog) describe(pool, typ string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, c := range l.seen[pool] {
		s := fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
		if c.Type == typ && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n  ")
}
