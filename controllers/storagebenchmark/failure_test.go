package storagebenchmark

import (
	"context"
	"errors"
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/test/fixtures"
	"github.com/benchwright/benchwright/test/wrappers"
)

// hugeFailure is a fio that printed 16 MiB and exited 1, and the driver
// that found it failed.
func hugeFailure(t testing.TB) (*driver, *artifacts.Store) {
	t.Helper()
	store, err := artifacts.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := fixtures.HugeLog{
		Line: []byte("fio: job started, 42% done, a line fio prints far too often\n"),
		End:  []byte("fio: pread failed: Input/output error\nthe last line\n"),
		Size: podlogs.MaxLogBytes,
	}
	bench := wrappers.MakeStorageBenchmark("big", "ns").UID("uid").Obj()
	pod := wrappers.MakePod("big-r0-n0", "ns").NodeName("node-a").Container(fioContainer, "").Obj()
	r := &Reconciler{Env: benchrun.Env{Logs: log, Store: store}}
	return &driver{r: r, b: bench, attempt: children.SlotAttempt{Observation: children.Observation{Failed: pod, Container: fioContainer, ExitCode: 1}}}, store
}

// A tool that prints 16 MiB and fails costs the manager a bounded part of
// its log, not the log and its copies (a dozen at once exhausted it): the
// log is streamed to the store, and the message quotes its diagnostics.
func TestFailureHoldsABoundedPartOfTheLog(t *testing.T) {
	d, store := hugeFailure(t)
	var err error
	n := fixtures.Allocated(t, func() { err = d.Failure(context.Background(), children.Attempt{}) })
	var oe *outcome.Outcome
	if !errors.As(err, &oe) || oe.Reason != benchv1.ReasonToolFailed || !strings.Contains(oe.Message, "exited with code 1") || !strings.Contains(oe.Message, "it said:\nfio: job started") {
		t.Fatalf("error %v, want ToolFailed quoting fio's diagnostics", err)
	}
	key, _ := artifacts.Location{Namespace: "ns", Kind: kind, Name: "big", UID: "uid"}.RawLog(0, "big-r0-n0")
	stored, err := store.Get(context.Background(), key)
	if err != nil || len(stored) != podlogs.MaxLogBytes || !strings.HasSuffix(string(stored), "the last line\n") {
		t.Fatalf("stored log of %d bytes, %v; want the whole log", len(stored), err)
	}
	t.Logf("Failure of a %d MiB log allocated %d KiB", podlogs.MaxLogBytes>>20, n>>10)
	// The store's uploader buffers 1 MiB; the rest is the quote, whatever
	// the log's size.
	if n > 2<<20 {
		t.Errorf("Failure of a %d MiB log allocated %d KiB, want under 2 MiB", podlogs.MaxLogBytes>>20, n>>10)
	}
}

// BenchmarkFailureOf16MiBLog is the failure path's cost for a 16 MiB log
// (B/op: what one failing reconcile allocates).
func BenchmarkFailureOf16MiBLog(b *testing.B) {
	d, _ := hugeFailure(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Failure(context.Background(), children.Attempt{}); err == nil {
			b.Fatal("no failure")
		}
	}
}
