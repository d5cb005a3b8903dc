package benchrun

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// A burst of new benchmarks is served before the running ones' events, and
// a requeue does not carry a started benchmark's old priority forward.
func TestStartsFirstServesNewBenchmarksFirst(t *testing.T) {
	s := runtime.NewScheme()
	if err := benchv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	started := metav1.Now()
	bench := func(name string, start *metav1.Time, succeeded bool) *benchv1.StorageBenchmark {
		b := &benchv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		b.Status.StartTime = start
		if succeeded {
			b.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionSucceeded, Status: metav1.ConditionTrue, Reason: "Succeeded", LastTransitionTime: started}}
		}
		return b
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(
		bench("running-1", &started, false), bench("running-2", &started, false),
		bench("done", &started, true), bench("new-1", nil, false), bench("new-2", nil, false),
	).Build()
	newQ := newStartsFirst(c, newBenchmark["StorageBenchmark"])
	q := newQ("test", workqueue.DefaultTypedItemBasedRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	pq := q.(priorityqueue.PriorityQueue[reconcile.Request])
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}
	// Running benchmarks' Job events come first, then the new ones; a
	// running benchmark re-added at a high priority (a requeue of an item
	// taken while it waited) is not served ahead of them.
	q.Add(req("running-1"))
	q.Add(req("done"))
	pq.AddWithOpts(priorityqueue.AddOpts{Priority: StartPriority}, req("running-2"))
	q.Add(req("new-1"))
	pq.AddWithOpts(priorityqueue.AddOpts{Priority: -100}, req("new-2")) // as listed at start-up

	var got []string
	for range 5 {
		it, prio, _ := pq.GetWithPriority()
		got = append(got, it.Name)
		if want := 0; it.Name != "new-1" && it.Name != "new-2" && prio != want {
			t.Errorf("%s taken at priority %d, want %d", it.Name, prio, want)
		}
		q.Done(it)
	}
	if got[0] != "new-1" || got[1] != "new-2" {
		t.Fatalf("taken in the order %v, want new-1 and new-2 first", got)
	}
}
