package benchrun

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/wrappers"
)

// finishedDriver's attempt is observed finished; Record puts what the tool
// said in the status; StopChildren counts its calls.
type finishedDriver struct {
	stepDriver
	stops *int
}

func (d finishedDriver) Observe(context.Context, int) (children.Attempt, error) {
	return children.Attempt{Phase: children.PhaseSucceeded}, nil
}

func (d finishedDriver) Record([]results.Summary) string {
	d.b.Status.MachineType = "a machine type the tool made up"
	return ""
}

func (d finishedDriver) StopChildren(context.Context) error {
	*d.stops++
	return nil
}

// A status the API server refuses after a collect (a tool's output put a
// field over its bound) fails the benchmark UnparsableOutput, from the
// status as read: retried, the same output would be refused forever, each
// time after reading every log, and the benchmark and its pool would never
// be let go.
func TestRefusedStatusFromToolOutputFailsTheBenchmark(t *testing.T) {
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	b := wrappers.MakeStorageBenchmark("fio", "perf").UID("u1").Repetitions(1).CreationTimestamp(now).StartTime(now).Obj()
	s := testScheme(t)
	refusals := 0
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(b).WithStatusSubresource(&benchv1.StorageBenchmark{}).
		WithInterceptorFuncs(interceptor.Funcs{SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if sb := obj.(*benchv1.StorageBenchmark); sb.Status.MachineType != "" {
				refusals++
				return apierrors.NewInvalid(schema.GroupKind{Group: "benchwright.io", Kind: "StorageBenchmark"}, sb.Name,
					field.ErrorList{field.TooLong(field.NewPath("status", "machineType"), sb.Status.MachineType, 8)})
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		}}).Build()
	store, err := artifacts.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{Client: c, Scheme: s, Recorder: record.NewFakeRecorder(16), Store: store, Clock: func() time.Time { return now }}
	var got benchv1.StorageBenchmark
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(b), &got); err != nil {
		t.Fatal(err)
	}
	stops := 0
	d := finishedDriver{stepDriver{b: &got, step: func(*benchv1.StorageBenchmark) error { return nil }}, &stops}
	if _, err := e.Reconcile(context.Background(), d); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(b), &got); err != nil {
		t.Fatal(err)
	}
	f := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
	if f == nil || f.Reason != benchv1.ReasonUnparsableOutput || refusals != 1 || stops != 1 {
		t.Fatalf("Failed %+v after %d refusal(s), %d stop(s); want UnparsableOutput after one refusal, the children stopped", f, refusals, stops)
	}
	if got.Status.MachineType != "" || got.Status.CompletedRepetitions != 0 {
		t.Errorf("the refused status was kept: %+v", got.Status)
	}
}
