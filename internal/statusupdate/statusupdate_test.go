package statusupdate

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func setup(t *testing.T) (client.Client, *benchv1.StorageBenchmark, *record.FakeRecorder) {
	t.Helper()
	s := runtime.NewScheme()
	if err := benchv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	b := &benchv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fio"}}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(b).WithStatusSubresource(b).Build()
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(b), b); err != nil {
		t.Fatal(err)
	}
	return c, b, record.NewFakeRecorder(10)
}

func TestWrite(t *testing.T) {
	ctx := context.Background()
	c, b, rec := setup(t)

	// Unchanged: nothing written, the events go out.
	events := NewEvents(rec)
	events.Eventf(b, "Normal", "Looked", "looked %d time(s)", 1)
	if w, err := Write(ctx, c, b.DeepCopy(), b, events); w != Unchanged || err != nil || len(rec.Events) != 1 {
		t.Fatalf("unchanged: %v, %v, %d events", w, err, len(rec.Events))
	}
	<-rec.Events

	// Changed: written, then the events.
	before := b.DeepCopy()
	b.Status.Progress = "1/3"
	events.Event(b, "Normal", "RepetitionCompleted", "1/3")
	if w, err := Write(ctx, c, before, b, events); w != Updated || err != nil || len(rec.Events) != 1 {
		t.Fatalf("changed: %v, %v, %d events", w, err, len(rec.Events))
	}
	<-rec.Events

	// A write from an out-of-date read: Conflicted, no error, no event.
	stale := before.DeepCopy()
	stale.Status.Progress = "2/3"
	events.Event(stale, "Normal", "RepetitionCompleted", "2/3")
	if w, err := Write(ctx, c, before, stale, events); w != Conflicted || err != nil || len(rec.Events) != 0 {
		t.Fatalf("conflict: %v, %v, %d events", w, err, len(rec.Events))
	}
	var got benchv1.StorageBenchmark
	if err := c.Get(ctx, client.ObjectKeyFromObject(b), &got); err != nil || got.Status.Progress != "1/3" {
		t.Fatalf("stored progress %q, %v; want the first write's", got.Status.Progress, err)
	}
}
