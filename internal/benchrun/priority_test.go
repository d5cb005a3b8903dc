package benchrun

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// A burst of new benchmarks is served before the running ones' events,
// and the work queue still shuts down with a worker waiting on it.
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
	q := newStartsFirst(c, newBenchmark["StorageBenchmark"])("test", workqueue.DefaultTypedItemBasedRateLimiter[reconcile.Request]())
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}
	for _, name := range []string{"running-1", "done", "new-1", "running-2", "gone", "new-2", "running-1"} {
		q.Add(req(name))
	}
	var got []string
	for q.Len() > 0 {
		it, _ := q.Get()
		got = append(got, it.Name)
		q.Done(it)
	}
	want := []string{"new-1", "new-2", "running-1", "done", "running-2", "gone"}
	if len(got) != len(want) {
		t.Fatalf("taken %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("taken %v, want %v", got, want)
		}
	}
	stopped := make(chan bool)
	go func() {
		_, shutdown := q.Get()
		stopped <- shutdown
	}()
	q.ShutDown()
	if !<-stopped {
		t.Fatal("a worker waiting on the queue was not told it shut down")
	}
}
