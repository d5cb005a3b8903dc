package benchrun

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/conditions"
	"github.com/benchwright/benchwright/internal/results"
)

// Benchmark is an object of any benchmark kind, as the state machine sees
// it: the object, its common spec and its common status.
type Benchmark interface {
	client.Object
	conditions.Setter
	BenchmarkSpec() *benchv1.BenchmarkSpecCommon
	BenchmarkStatus() *benchv1.BenchmarkStatusCommon
}

// Driver is one benchmark kind's part of a reconcile. A reconciler makes one
// for each reconcile, around the benchmark it read; the state machine
// (Env.Reconcile) owns the phases, the timeouts, the retries, success and
// failure, and calls the driver for what only the kind knows. A driver may
// keep what Observe found for the Failure, StopAttempt or Collect that
// follows in the same reconcile. Any method may fail the benchmark by
// returning an Outcome.
type Driver interface {
	// Benchmark is the benchmark being reconciled.
	Benchmark() Benchmark
	// Kind names the kind in the artifact store and the pool's queue.
	Kind() string
	// Admit refuses what the manager's settings forbid, before the benchmark
	// waits for its pool.
	Admit() error
	// EnsureInputs builds what every attempt shares and creates, once, the
	// children among it: claims, Services.
	EnsureInputs(ctx context.Context) error
	// Observe lists the children and says where the latest attempt of
	// repetition rep stands.
	Observe(ctx context.Context, rep int) (children.Attempt, error)
	// CreateAttempt creates the children of an attempt that do not exist yet
	// and returns those it created.
	CreateAttempt(ctx context.Context, rep, attempt int) ([]client.Object, error)
	// StopAttempt stops what is left of a lost attempt before the next.
	StopAttempt(ctx context.Context, a children.Attempt) error
	// Failure is the Outcome of an attempt whose tool failed, after its log
	// was stored. It runs in a turn to collect (see turnsToCollect).
	Failure(ctx context.Context, a children.Attempt) error
	// Collect reads, parses and stores a finished attempt's output.
	Collect(ctx context.Context, a children.Attempt) (Collected, error)
	// Record puts a completed repetition's summaries into the kind's status
	// and returns a note for its RepetitionCompleted event.
	Record(summaries []results.Summary) string
	// StopChildren deletes what still runs after a failure.
	StopChildren(ctx context.Context) error
	// Display derives the status' display fields.
	Display()
}

// Collected is a finished repetition's output, parsed and labelled.
type Collected struct {
	Samples []results.Sample
	Nodes   []results.NodeInfo
	Options results.SummarizeOptions
	// Warnings say what of the nodes' series is missing or incomplete
	// (internal/monitor): never a failure.
	Warnings []string
}
