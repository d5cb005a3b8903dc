package gke_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
)

// maxAttempts bounds the driver's creates per pool.
const maxAttempts = 4

// provision is a small stand-in for the controller's retry loop: create, wait
// for the operation, and on any failure delete what may have been created (GKE
// leaves a pool whose operation failed in ERROR) before retrying a retryable
// failure with backoff or giving up.
func provision(ctx context.Context, p *gke.Provider, c gke.Cluster, np *containerpb.NodePool) error {
	backoff := time.Millisecond
	for attempt := 1; ; attempt++ {
		op, err := p.Create(ctx, c, np)
		if err == nil {
			if err = wait(ctx, p, c, op); err == nil {
				return nil
			}
		}
		if gke.KindOf(err) == gke.Busy {
			// GKE did not take the call (its concurrent operations quota):
			// no attempt, nothing to clean up.
			attempt--
			time.Sleep(time.Millisecond)
			continue
		}
		if cerr := remove(ctx, p, c, np.GetName()); cerr != nil {
			return fmt.Errorf("cleaning up after %w: %w", err, cerr)
		}
		if !gke.Retryable(err) || attempt == maxAttempts {
			return err
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, 8*time.Millisecond)
	}
}

// remove deletes a node pool and waits until it is gone, retrying while GKE is
// busy with another operation on it.
func remove(ctx context.Context, p *gke.Provider, c gke.Cluster, name string) error {
	for {
		op, err := p.Delete(ctx, c, name)
		switch {
		case err == nil && op == "":
			return nil
		case err == nil:
			return wait(ctx, p, c, op)
		case !gke.Retryable(err):
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFiftyCreatesWithInjectedFailures provisions 50 pools while the fake
// injects a seeded mix of synchronous and asynchronous stockouts, quota,
// invalid configuration and transient errors, then deletes the pools that came
// up: every pool ends as the plan says and no node pool is left behind.
func TestFiftyCreatesWithInjectedFailures(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv, p := start(t, fakegke.WithRunningPolls(1))

	stockout := fakegke.Stockout("bench-proj", "us-central1-a")
	stockoutLater := fakegke.StockoutDuringProvisioning("bench-proj", "us-central1-a", "gke-bench-pool-5f2c9a1e-0001")
	// Weighted towards what a campaign meets most: stockouts and blips.
	menu := []fakegke.Failure{
		stockout, stockout, stockoutLater, stockoutLater, stockoutLater,
		fakegke.Unavailable(), fakegke.Unavailable(), fakegke.InternalError().AsAsync(), fakegke.InternalError().AsAsync(),
		fakegke.InsufficientQuota("bench-proj", "C2_CPUS", 120, 96, 24),
		fakegke.QuotaExceeded("C2_CPUS", 24, "us-central1").AsAsync(),
		fakegke.CompactPlacementUnsupported("c2-standard-60"),
		fakegke.InvalidSysctl("net.core.busy_poll"),
	}
	rng := rand.New(rand.NewPCG(20240605, 3))
	type plan struct {
		failures []fakegke.Failure
		want     gke.Kind // -1: comes up
	}
	plans := map[string]*plan{}
	var names []string
	for i := range 50 {
		name := fmt.Sprintf("pool-%02d", i)
		pl := &plan{want: -1}
		for range rng.IntN(maxAttempts + 1) { // 0..4 failures: 4 retryable ones exhaust the attempts
			pl.failures = append(pl.failures, menu[rng.IntN(len(menu))])
		}
		for j, f := range pl.failures {
			kind := gke.KindOf(gke.Classify(f))
			if !kind.Retryable() || j == maxAttempts-1 {
				pl.want = kind
				break
			}
		}
		plans[name] = pl
		names = append(names, name)
	}

	var mu sync.Mutex
	injected := map[string]int{}
	srv.SetInject(func(req *containerpb.CreateNodePoolRequest) error {
		mu.Lock()
		defer mu.Unlock()
		pl := plans[req.GetNodePool().GetName()]
		if len(pl.failures) == 0 {
			return nil
		}
		f := pl.failures[0]
		pl.failures = pl.failures[1:]
		injected[fmt.Sprintf("%v async=%v", gke.KindOf(gke.Classify(f)), f.Async)]++
		return f
	})
	wants := map[string]gke.Kind{}
	for name, pl := range plans {
		wants[name] = pl.want
	}

	results := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		spec := mpiSpec()
		if i%2 == 1 {
			spec = &benchv1.GKEPoolSpec{MachineType: "c3-highcpu-176", NodeCount: 1, DiskType: "pd-ssd"}
		}
		np := request(t, name, spec)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = provision(ctx, p, zonal, np)
		}()
	}
	wg.Wait()

	var up []string
	for i, name := range names {
		err, want := results[i], wants[name]
		switch {
		case want < 0 && err != nil:
			t.Errorf("%s: %v, want it to come up", name, err)
		case want >= 0 && gke.KindOf(err) != want:
			t.Errorf("%s: %v, want a %v failure", name, err, want)
		case want >= 0:
			var e *gke.Error
			if !errors.As(err, &e) || e.Message == "" {
				t.Errorf("%s: %v has no GKE message", name, err)
			}
		default:
			up = append(up, name)
		}
	}
	t.Logf("%d pools up, %d failed for good; injected %v", len(up), len(names)-len(up), injected)
	for _, kind := range []string{"Stockout async=false", "Stockout async=true", "QuotaExceeded async=false", "QuotaExceeded async=true", "InvalidConfig async=false", "Transient async=false", "Transient async=true"} {
		if injected[kind] == 0 {
			t.Errorf("the seed injected no %q: change it to cover every failure", kind)
		}
	}

	pools, err := p.List(ctx, zonal)
	if err != nil {
		t.Fatal(err)
	}
	if len(pools) != len(up) {
		t.Errorf("%d node pools in the cluster, want the %d that came up", len(pools), len(up))
	}
	for _, np := range pools {
		if np.GetStatus() != containerpb.NodePool_RUNNING {
			t.Errorf("pool %s left in %v", np.GetName(), np.GetStatus())
		}
	}
	for _, name := range up {
		if err := remove(ctx, p, zonal, name); err != nil {
			t.Errorf("deleting %s: %v", name, err)
		}
	}
	if pools, err := p.List(ctx, zonal); err != nil || len(pools) != 0 {
		t.Fatalf("after the run: %d node pools (%v), want none", len(pools), err)
	}
	if left := srv.NodePools(zonal.Parent()); len(left) != 0 {
		t.Fatalf("the fake still holds %d node pools", len(left))
	}
}
