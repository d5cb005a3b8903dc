package integration

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/mpibenchmark"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
)

// Twenty benchmarks of two kinds, created in one second on one free pool and
// reconciled by four workers of each kind, start one at a time: the first is
// whichever the manager let start first (the pool was free), every later one
// the head of the pool's queue (creation time, then kind/namespace/name). The
// test plays the benchmarks' end: it deletes each as soon as it has
// children, which frees the pool.
func TestPoolQueueStaysStrictWithSeveralWorkers(t *testing.T) {
	const pool, count, workers = "workers-pool", 20, 4
	createPool(t, pool, true)
	ns := testNamespace(t, "pq-")
	startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		sb := &storagebenchmark.Reconciler{Env: benchrun.NewEnv(mgr, "storagebenchmark-controller", nil, store), Image: "registry.example/fio:test"}
		sb.Workers = workers
		if err := sb.SetupWithManager(mgr); err != nil {
			return err
		}
		mb := &mpibenchmark.Reconciler{Env: benchrun.NewEnv(mgr, "mpibenchmark-controller", nil, store),
			Images: map[benchv1.MPIImplementation]string{benchv1.OpenMPI: "registry.example/mpi-openmpi:test"}}
		mb.Workers = workers
		return mb.SetupWithManager(mgr)
	}, noStandIn)

	storageSpec := strings.Replace(strings.Replace(smallFio, "nodeSelector: {kubernetes.io/os: linux}", "pool: "+pool, 1), "repetitions: 2", "repetitions: 1", 1)
	mpiSpec := "pool: " + pool + "\nsuite: osu\ntests: [osu_latency]\nlayout: {nodes: 2, ranksPerNode: 1}\nmpi: {implementation: OpenMPI}\nrepetitions: 1\n"
	objs := make([]client.Object, count)
	for i := range objs {
		var obj client.Object
		var spec any
		if i%2 == 0 {
			b := &benchv1.StorageBenchmark{}
			obj, spec = b, &b.Spec
			if err := yaml.UnmarshalStrict([]byte(storageSpec), spec); err != nil {
				t.Fatal(err)
			}
		} else {
			b := &benchv1.MPIBenchmark{}
			obj, spec = b, &b.Spec
			if err := yaml.UnmarshalStrict([]byte(mpiSpec), spec); err != nil {
				t.Fatal(err)
			}
		}
		obj.SetName(fmt.Sprintf("b-%02d", i))
		obj.SetNamespace(ns)
		objs[i] = obj
	}
	// Each benchmark is created after the one before it and sorts before it
	// in the queue (same second; MPIBenchmark/ before StorageBenchmark/, then
	// names descending), so that each new one would take the pool if it did
	// not yet see the start of the one before: the cache's lag, which the
	// workers must not trip over. The manager is up, and the second fresh.
	sort.Slice(objs, func(i, j int) bool {
		_, mi := objs[i].(*benchv1.MPIBenchmark)
		_, mj := objs[j].(*benchv1.MPIBenchmark)
		if mi != mj {
			return mj
		}
		return objs[i].GetName() > objs[j].GetName()
	})
	time.Sleep(time.Until(time.Now().Add(2 * time.Second).Truncate(time.Second)))
	for _, obj := range objs {
		if err := k8sClient.Create(context.Background(), obj); err != nil {
			t.Fatalf("creating %s: %v", obj.GetName(), err)
		}
		time.Sleep(5 * time.Millisecond)
	}

	// Which benchmarks have children: a Job or an MPIJob names each.
	started := func() map[string]string {
		out := map[string]string{}
		var jobs batchv1.JobList
		if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs.Items {
			out[j.Labels[benchv1.BenchmarkLabel]] = j.Labels[benchv1.KindLabel]
		}
		var mpiJobs mpiv2.MPIJobList
		if err := k8sClient.List(context.Background(), &mpiJobs, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, j := range mpiJobs.Items {
			out[j.Labels[benchv1.BenchmarkLabel]] = j.Labels[benchv1.KindLabel]
		}
		return out
	}
	var order []string
	ended := map[string]bool{}
	deadline := time.Now().Add(2 * time.Minute)
	for len(order) < count {
		if time.Now().After(deadline) {
			t.Fatalf("after 2m, %d of %d started: %v", len(order), count, order)
		}
		var running []string
		for name := range started() {
			if !ended[name] {
				running = append(running, name)
			}
		}
		sort.Strings(running)
		switch {
		case len(running) > 1:
			t.Fatalf("%d benchmarks on pool %s at once: %v (started before: %v)", len(running), pool, running, order)
		case len(running) == 1:
			name := running[0]
			order = append(order, name)
			ended[name] = true
			obj := objs[indexOf(t, objs, name)]
			if err := k8sClient.Delete(context.Background(), obj); err != nil {
				t.Fatal(err)
			}
		default:
			time.Sleep(20 * time.Millisecond)
		}
	}

	// The queue's order of all but the first: creation time, then ID.
	type entry struct {
		name, id string
		created  time.Time
	}
	var rest []entry
	for _, obj := range objs {
		if obj.GetName() == order[0] {
			continue
		}
		kind := "StorageBenchmark"
		if _, ok := obj.(*benchv1.MPIBenchmark); ok {
			kind = "MPIBenchmark"
		}
		rest = append(rest, entry{obj.GetName(), kind + "/" + ns + "/" + obj.GetName(), obj.GetCreationTimestamp().Time})
	}
	sort.Slice(rest, func(i, j int) bool {
		if !rest[i].created.Equal(rest[j].created) {
			return rest[i].created.Before(rest[j].created)
		}
		return rest[i].id < rest[j].id
	})
	t.Logf("start order %v; created %v .. %v", order, rest[0].created, rest[len(rest)-1].created)
	want := []string{order[0]}
	for _, e := range rest {
		want = append(want, e.name)
	}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("start order\n %v\nwant (the queue's order after the first)\n %v", order, want)
	}
}

func indexOf(t *testing.T, objs []client.Object, name string) int {
	t.Helper()
	for i, o := range objs {
		if o.GetName() == name {
			return i
		}
	}
	t.Fatalf("no benchmark %s", name)
	return -1
}
