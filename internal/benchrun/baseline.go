package benchrun

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/statusupdate"
)

// A relative expectation is checked once both benchmarks have succeeded,
// whichever ends last (a campaign's cells end in any order): a benchmark
// that succeeds before its baseline keeps MeetsExpectations Unknown
// (BaselineMissing), and is evaluated again from its stored summary when
// the baseline succeeds.

// awaitsBaseline tells whether a succeeded benchmark's expectations wait
// for a relative baseline.
func awaitsBaseline(b Benchmark) bool {
	st := b.BenchmarkStatus()
	c := meta.FindStatusCondition(st.Conditions, benchv1.ConditionMeetsExpectations)
	return c != nil && c.Status == metav1.ConditionUnknown && c.Reason == benchv1.ReasonBaselineMissing &&
		meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionSucceeded)
}

// reexpect evaluates again the expectations of a succeeded benchmark that
// waits for a baseline, from its stored summary, and writes the condition
// when it changed.
func (e *Env) reexpect(ctx context.Context, d Driver) (ctrl.Result, error) {
	b := d.Benchmark()
	before := b.DeepCopyObject().(Benchmark)
	events := statusupdate.NewEvents(e.Recorder)
	m := newMachine(e, d)
	m.Recorder = events
	summaries, err := m.storedSummaries(ctx, m.kind, b.GetNamespace(), b.GetName(), string(b.GetUID()))
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("its expectations wait for a baseline: %w", err)
	}
	if err := m.expect(ctx, summaries); err != nil {
		return ctrl.Result{}, err
	}
	written, err := statusupdate.Write(ctx, e.Client, before, b, events)
	if err == nil && written == statusupdate.Conflicted {
		return ctrl.Result{RequeueAfter: statusupdate.ConflictRetry}, nil
	}
	return ctrl.Result{}, err
}

// storedSummaries are the summaries a run stored (summary.json).
func (m *machine) storedSummaries(ctx context.Context, kind, namespace, name, uid string) ([]results.Summary, error) {
	key, err := artifacts.Location{Namespace: namespace, Kind: kind, Name: name, UID: uid}.Summary()
	if err != nil {
		return nil, err
	}
	data, err := m.Store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("reading the summary of %s: %w", name, err)
	}
	var sum results.RunSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, fmt.Errorf("reading the summary of %s: %w", name, err)
	}
	return sum.Summaries, nil
}

// wakeDependents queues the benchmarks of kind in obj's namespace whose
// expectations wait for obj, which has just succeeded; and obj itself when
// it has just started to wait (its baseline may have succeeded meanwhile).
func (e *Env) wakeDependents(ctx context.Context, kind string, old, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	bm, ok := obj.(Benchmark)
	if !ok || reflect.TypeOf(obj) != reflect.TypeOf(newBenchmark[kind]()) {
		return
	}
	was, _ := old.(Benchmark)
	if awaitsBaseline(bm) && (was == nil || !awaitsBaseline(was)) {
		q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	}
	succeeded := func(b Benchmark) bool {
		return b != nil && meta.IsStatusConditionTrue(b.BenchmarkStatus().Conditions, benchv1.ConditionSucceeded)
	}
	if !succeeded(bm) || succeeded(was) {
		return
	}
	list := newList[kind]()
	if err := e.List(ctx, list, client.InNamespace(obj.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing the benchmarks that may wait for a baseline", "baseline", obj.GetName())
		return
	}
	items, _ := meta.ExtractList(list)
	for _, item := range items {
		dep, ok := item.(Benchmark)
		if !ok || !awaitsBaseline(dep) {
			continue
		}
		for _, x := range dep.BenchmarkSpec().Expectations {
			if x.Relative != nil && string(x.Relative.Baseline) == obj.GetName() {
				q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(dep)})
				break
			}
		}
	}
}

// newList makes an empty list of each kind.
var newList = map[string]func() client.ObjectList{
	"StorageBenchmark": func() client.ObjectList { return &benchv1.StorageBenchmarkList{} },
	"MPIBenchmark":     func() client.ObjectList { return &benchv1.MPIBenchmarkList{} },
	"NetworkBenchmark": func() client.ObjectList { return &benchv1.NetworkBenchmarkList{} },
}
