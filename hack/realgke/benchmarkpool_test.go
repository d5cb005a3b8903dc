package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/test/util"
)

// startPoolController runs the BenchmarkPool controller against the endpoint,
// and returns a client of its manager's scheme.
func startPoolController(t *testing.T, e *endpoint) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := benchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &benchmarkpool.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: scheme,
		Recorder: mgr.GetEventRecorderFor("benchmarkpool-controller"),
		GKE:      e.gke, GKECluster: e.cluster, PollInterval: 100 * time.Millisecond, RetryBackoff: 200 * time.Millisecond,
	}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	c, err := client.New(restConfig, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Three GKE BenchmarkPools of one node on a machine that holds two: two are
// Ready once their nodes are, the third says Stockout and is retried, and is
// Ready once a deleted pool's node has left.
func TestBenchmarkPoolsThroughTheController(t *testing.T) {
	e := serve(t, "pools", 3, 4)
	c := startPoolController(t, e)
	ctx := t.Context()
	pools := []string{"bp-one", "bp-two", "bp-three"}
	for _, name := range pools {
		p := &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: benchv1.BenchmarkPoolSpec{
			Provider: benchv1.ProviderGKE, GKE: &benchv1.GKEPoolSpec{MachineType: "c2-standard-60", NodeCount: 1},
		}}
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if name == "bp-two" {
			waitPool(t, c, "bp-one", "Ready with its node", readyPool)
			waitPool(t, c, "bp-two", "Ready with its node", readyPool)
		}
	}
	waitPool(t, c, "bp-three", "a Stockout retried", func(p *benchv1.BenchmarkPool) bool {
		r := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
		return r != nil && r.Reason == benchv1.ReasonStockout && p.Annotations != nil
	})
	if err := c.Delete(ctx, &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: "bp-one"}}); err != nil {
		t.Fatal(err)
	}
	waitPool(t, c, "bp-three", "Ready once a slot is free", readyPool)
	for _, name := range pools[1:] {
		if err := c.Delete(ctx, &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range pools {
		util.WaitFor(t, 20*time.Second, name+" and its nodes gone", func() (bool, string) {
			err := c.Get(ctx, client.ObjectKey{Name: name}, &benchv1.BenchmarkPool{})
			return apierrors.IsNotFound(err) && len(poolNodes(t, name)) == 0, fmt.Sprint(err)
		})
	}
	if n := e.prov.slots.inUse(); n != 0 {
		t.Errorf("%d slots in use once every pool is deleted", n)
	}
}

func readyPool(p *benchv1.BenchmarkPool) bool {
	return meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.PoolConditionReady) && p.Status.ReadyNodes == 1
}

func waitPool(t *testing.T, c client.Client, name, what string, ok func(*benchv1.BenchmarkPool) bool) {
	t.Helper()
	util.WaitFor(t, 20*time.Second, name+" "+what, func() (bool, string) {
		var p benchv1.BenchmarkPool
		if err := c.Get(t.Context(), client.ObjectKey{Name: name}, &p); err != nil {
			return false, err.Error()
		}
		return ok(&p), fmt.Sprintf("%+v", p.Status.Conditions)
	})
}
