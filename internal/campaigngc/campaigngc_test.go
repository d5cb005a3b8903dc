package campaigngc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func annotated(kv ...string) *benchv1.BenchmarkPool {
	p := &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: "c1-pool", UID: "pool-uid",
		Labels: map[string]string{benchv1.CampaignLabel: "c1"}, Annotations: map[string]string{}}}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Annotations[kv[i]] = kv[i+1]
	}
	return p
}

func TestOf(t *testing.T) {
	const name, uid = benchv1.WorkflowAnnotation, benchv1.WorkflowUIDAnnotation
	for _, tc := range []struct {
		desc    string
		obj     *benchv1.BenchmarkPool
		want    Workflow
		ok      bool
		wantErr string
	}{
		{"both", annotated(name, "benchwright-campaigns/c1", uid, "wf-uid"),
			Workflow{Key: types.NamespacedName{Namespace: "benchwright-campaigns", Name: "c1"}, UID: "wf-uid"}, true, ""},
		{"the campaign label alone", annotated(), Workflow{}, false, ""},
		{"no UID", annotated(name, "benchwright-campaigns/c1"), Workflow{}, false, ""},
		{"no name", annotated(uid, "wf-uid"), Workflow{}, false, ""},
		{"no namespace", annotated(name, "c1", uid, "wf-uid"), Workflow{}, true, "is not NAMESPACE/NAME"},
		{"empty name", annotated(name, "ns/", uid, "wf-uid"), Workflow{}, true, "is not NAMESPACE/NAME"},
		{"three parts", annotated(name, "ns/a/b", uid, "wf-uid"), Workflow{}, true, "is not NAMESPACE/NAME"},
		{"bad namespace", annotated(name, "Campaigns/c1", uid, "wf-uid"), Workflow{}, true, "is not NAMESPACE/NAME"},
		{"empty UID", annotated(name, "ns/c1", uid, ""), Workflow{}, true, "is empty"},
	} {
		got, ok, err := Of(tc.obj)
		if got != tc.want || ok != tc.ok || (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: Of = %+v, %v, %v; want %+v, %v, error with %q", tc.desc, got, ok, err, tc.want, tc.ok, tc.wantErr)
		}
	}
}

func TestJudge(t *testing.T) {
	w := Workflow{Key: types.NamespacedName{Namespace: "benchwright-campaigns", Name: "c1"}, UID: "wf-uid"}
	gr := schema.GroupResource{Group: "argoproj.io", Resource: "workflows"}
	for _, tc := range []struct {
		desc string
		live types.UID
		err  error
		want Verdict
		why  string
	}{
		{"exists", "wf-uid", nil, Alive, ""},
		{"not found", "", apierrors.NewNotFound(gr, "c1"), Gone, "Workflow benchwright-campaigns/c1 is gone"},
		{"replaced", "other-uid", nil, Gone, "one of that name with UID other-uid replaced it"},
		{"not served", "", &meta.NoKindMatchError{GroupKind: WorkflowKind.GroupKind(), SearchedVersions: []string{"v1alpha1"}}, Gone, "serves no Workflows"},
		{"not served, wrapped", "", errors.Join(errors.New("discovery"), &meta.NoResourceMatchError{}), Gone, "serves no Workflows"},
		{"forbidden", "", apierrors.NewForbidden(gr, "c1", errors.New("no RBAC")), Unknown, "cannot be looked up"},
		{"unreachable", "", errors.New("connection refused"), Unknown, "connection refused"},
		{"timeout", "", apierrors.NewTimeoutError("slow", 1), Unknown, "cannot be looked up"},
	} {
		v, why := Judge(w, tc.live, tc.err)
		if v != tc.want || !strings.Contains(why, tc.why) {
			t.Errorf("%s: Judge = %v %q, want %v with %q", tc.desc, v, why, tc.want, tc.why)
		}
	}
}

// collectOnce runs Collect on pool with a reader whose Workflow lookup
// returns uid or err.
func collectOnce(t *testing.T, pool *benchv1.BenchmarkPool, uid types.UID, lookupErr error) (deleted bool, recheck time.Duration, events []string, exists bool) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := benchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(pool.DeepCopy()).Build()
	lookups := 0
	reader := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(_ context.Context, _ client.WithWatch, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
			lookups++
			if gvk := obj.GetObjectKind().GroupVersionKind(); gvk != WorkflowKind || key.Namespace != "ns" || key.Name != "c1" {
				t.Errorf("looked up %v %v, want the Workflow ns/c1", gvk, key)
			}
			obj.SetUID(uid)
			return lookupErr
		},
	}).Build()
	rec := record.NewFakeRecorder(10)
	deleted, recheck, err := Collector{Reader: reader, Client: c, Recorder: rec, Recheck: time.Second}.Collect(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	close(rec.Events)
	for e := range rec.Events {
		events = append(events, e)
	}
	err = c.Get(context.Background(), client.ObjectKeyFromObject(pool), &benchv1.BenchmarkPool{})
	if !apierrors.IsNotFound(err) && err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := Of(pool); !ok && lookups > 0 {
		t.Errorf("looked up a Workflow for an object without both annotations")
	}
	return deleted, recheck, events, err == nil
}

func TestCollect(t *testing.T) {
	gr := schema.GroupResource{Group: "argoproj.io", Resource: "workflows"}
	named := func() *benchv1.BenchmarkPool {
		return annotated(benchv1.WorkflowAnnotation, "ns/c1", benchv1.WorkflowUIDAnnotation, "wf-uid")
	}
	for _, tc := range []struct {
		desc        string
		pool        *benchv1.BenchmarkPool
		uid         types.UID
		err         error
		wantDeleted bool
		wantRecheck time.Duration
		wantEvent   string
	}{
		{"alive", named(), "wf-uid", nil, false, time.Second, ""},
		{"gone", named(), "", apierrors.NewNotFound(gr, "c1"), true, 0, "Normal WorkflowGone Workflow ns/c1 is gone: deleting what its campaign made"},
		{"replaced", named(), "new-uid", nil, true, 0, "Normal WorkflowGone Workflow ns/c1 with UID wf-uid is gone"},
		{"not served", named(), "", &meta.NoKindMatchError{GroupKind: WorkflowKind.GroupKind()}, true, 0, "serves no Workflows"},
		{"forbidden", named(), "", apierrors.NewForbidden(gr, "c1", errors.New("no")), false, time.Second, ""},
		{"label only", annotated(), "", apierrors.NewNotFound(gr, "c1"), false, 0, ""},
		{"UID only", annotated(benchv1.WorkflowUIDAnnotation, "wf-uid"), "", apierrors.NewNotFound(gr, "c1"), false, 0, ""},
		{"malformed", annotated(benchv1.WorkflowAnnotation, "c1", benchv1.WorkflowUIDAnnotation, "wf-uid"), "", apierrors.NewNotFound(gr, "c1"), false, 0, ""},
	} {
		deleted, recheck, events, exists := collectOnce(t, tc.pool, tc.uid, tc.err)
		if deleted != tc.wantDeleted || exists == tc.wantDeleted || recheck != tc.wantRecheck {
			t.Errorf("%s: deleted %v (exists %v), recheck %v; want deleted %v, recheck %v", tc.desc, deleted, exists, recheck, tc.wantDeleted, tc.wantRecheck)
		}
		if want := tc.wantEvent != ""; (len(events) != 0) != want || want && (len(events) != 1 || !strings.Contains(events[0], tc.wantEvent)) {
			t.Errorf("%s: events %q, want one with %q", tc.desc, events, tc.wantEvent)
		}
	}
}

// A nil Reader collects nothing: the cached client would watch Workflows.
func TestCollectWithoutReader(t *testing.T) {
	pool := annotated(benchv1.WorkflowAnnotation, "ns/c1", benchv1.WorkflowUIDAnnotation, "wf-uid")
	deleted, recheck, err := Collector{}.Collect(context.Background(), pool)
	if deleted || recheck != 0 || err != nil {
		t.Errorf("Collect without a Reader = %v, %v, %v; want nothing done", deleted, recheck, err)
	}
}

func TestSooner(t *testing.T) {
	for _, tc := range []struct{ res, recheck, want time.Duration }{
		{0, 0, 0}, {0, time.Second, time.Second}, {time.Minute, time.Second, time.Second},
		{time.Millisecond, time.Second, time.Millisecond}, {time.Minute, 0, time.Minute},
	} {
		if got := Sooner(ctrl.Result{RequeueAfter: tc.res}, tc.recheck).RequeueAfter; got != tc.want {
			t.Errorf("Sooner(%v, %v) = %v, want %v", tc.res, tc.recheck, got, tc.want)
		}
	}
}
