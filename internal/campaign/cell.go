package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Runner runs a campaign's cells against the API server, as the Workflow's
// ServiceAccount.
type Runner struct {
	Client   client.Client
	Matrix   *Matrix
	Workflow Workflow
	// Log gets a line per event, with the time since the cell began.
	Log io.Writer
	// Poll is how often a wait reads the object again.
	Poll time.Duration
	// PoolTimeout bounds the wait for a pool to be Ready (and a tuning
	// Tuned); ReleaseTimeout the wait for them to be gone.
	PoolTimeout, ReleaseTimeout time.Duration
}

// Outcome is a benchmark's end in a cell.
type Outcome struct {
	Kind, Name string
	State      string
	Reason     string
	Message    string
	Headline   string
	// Kept says it had Succeeded in an earlier attempt of the cell, and
	// was not run again.
	Kept bool
}

// Timings are where a cell's time went.
type Timings struct {
	Pool, Tuning, Benchmarks, Release time.Duration
}

// RunCell runs a cell: its pool Ready, its tuning Tuned, its benchmarks run
// (the pool runs them one at a time), then its tuning deleted (the nodes
// restored) and, unless keepPool (the pool's next tuning follows), its pool.
// The release happens whatever the outcome, even when ctx ends (the step's
// deadline or a deleted Workflow): it has ReleaseTimeout of its own.
//
// A cell run again (argo retry, a retried step) keeps its benchmarks that
// Succeeded, waits for those still running, and runs again those that
// Failed. The error names each failed benchmark with its reason.
func (r *Runner) RunCell(ctx context.Context, cell Cell, keepPool bool) (out []Outcome, t Timings, err error) {
	logf := stepLog(r.Log)
	held := false
	defer func() {
		start := time.Now()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.ReleaseTimeout)
		defer cancel()
		// On a shared pool, the tuning (named after the pool) is this
		// cell's only while it holds the pool.
		if !keepPool || held {
			if rerr := r.release(rctx, cell, !keepPool, logf); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		if held && keepPool {
			if uerr := r.unholdPool(rctx, r.Matrix.PoolName(r.Workflow, cell), cell.Tuning.Name); uerr != nil {
				err = errors.Join(err, uerr)
			}
		}
		t.Release = time.Since(start)
	}()

	start := time.Now()
	pool := r.Matrix.PoolObject(r.Workflow, cell)
	if err := r.ensure(ctx, pool, logf); err != nil {
		return nil, t, err
	}
	if err := r.waitPool(ctx, pool.GetName(), logf); err != nil {
		return nil, t, err
	}
	// The cell holds its pool until it ends: a held pool is not idle (its
	// TTL does not run out while the tuning is applied), and a shared pool
	// has one cell on it at a time.
	if err := r.holdPool(ctx, pool.GetName(), cell.Tuning.Name, logf); err != nil {
		return nil, t, err
	}
	held = true
	t.Pool = time.Since(start)

	if cell.Tuned() {
		start = time.Now()
		tuning := r.Matrix.TuningObject(r.Workflow, cell)
		if err := r.ensure(ctx, tuning, logf); err != nil {
			return nil, t, err
		}
		if err := r.waitTuning(ctx, tuning.GetName(), logf); err != nil {
			return nil, t, err
		}
		t.Tuning = time.Since(start)
	}

	start = time.Now()
	out, err = r.runBenchmarks(ctx, cell, logf)
	t.Benchmarks = time.Since(start)
	return out, t, err
}

// runBenchmarks creates the cell's benchmarks (or keeps them, per RunCell)
// and waits for each to end.
func (r *Runner) runBenchmarks(ctx context.Context, cell Cell, logf func(string, ...any)) ([]Outcome, error) {
	objs := make([]*unstructured.Unstructured, len(r.Matrix.Benchmarks))
	kept := make([]bool, len(objs))
	for i, b := range r.Matrix.Benchmarks {
		objs[i] = r.Matrix.BenchmarkObject(r.Workflow, cell, b)
		k, err := r.prepareBenchmark(ctx, objs[i], logf)
		if err != nil {
			return nil, err
		}
		kept[i] = k
	}
	out := make([]Outcome, len(objs))
	var failed []string
	for i, o := range objs {
		got, err := r.waitBenchmark(ctx, o, logf)
		if err != nil {
			return out, err
		}
		got.Kept = kept[i]
		out[i] = got
		if got.State != string(benchv1.StateSucceeded) {
			failed = append(failed, fmt.Sprintf("%s %s %s (%s): %s", got.Kind, got.Name, got.State, got.Reason, got.Message))
		}
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("cell %s: %d of %d benchmarks failed: %s", cell, len(failed), len(objs), strings.Join(failed, "; "))
	}
	return out, nil
}

// prepareBenchmark creates the benchmark; one of an earlier attempt is kept
// when it Succeeded or still runs, and made again when it Failed. It says
// whether the benchmark is kept from before.
func (r *Runner) prepareBenchmark(ctx context.Context, o *unstructured.Unstructured, logf func(string, ...any)) (bool, error) {
	old := &unstructured.Unstructured{}
	old.SetGroupVersionKind(o.GroupVersionKind())
	err := r.Client.Get(ctx, client.ObjectKeyFromObject(o), old)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return false, err
	case old.GetDeletionTimestamp() != nil:
		if err := r.waitGone(ctx, old, logf); err != nil {
			return false, err
		}
	case state(old) == string(benchv1.StateFailed):
		logf("%s %s Failed in an earlier attempt (%s): running it again", o.GetKind(), o.GetName(), failure(old))
		if err := r.Client.Delete(ctx, old, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		if err := r.waitGone(ctx, old, logf); err != nil {
			return false, err
		}
	default:
		if err := r.mine(old); err != nil {
			return false, err
		}
		logf("%s %s is there from an earlier attempt (%s): kept", o.GetKind(), o.GetName(), orDash(state(old)))
		return state(old) == string(benchv1.StateSucceeded), nil
	}
	if err := r.Client.Create(ctx, o); err != nil {
		return false, fmt.Errorf("creating %s %s: %w", o.GetKind(), o.GetName(), err)
	}
	logf("%s %s created", o.GetKind(), o.GetName())
	return false, nil
}

// ensure creates a pool or tuning, or finds the one an earlier attempt made
// (after waiting out one being deleted).
func (r *Runner) ensure(ctx context.Context, o *unstructured.Unstructured, logf func(string, ...any)) error {
	for {
		err := r.Client.Create(ctx, o.DeepCopy())
		if err == nil {
			logf("%s %s created", o.GetKind(), o.GetName())
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		old := &unstructured.Unstructured{}
		old.SetGroupVersionKind(o.GroupVersionKind())
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(o), old); apierrors.IsNotFound(err) {
			continue
		} else if err != nil {
			return err
		}
		if old.GetDeletionTimestamp() == nil {
			if err := r.mine(old); err != nil {
				return err
			}
			logf("%s %s is there from an earlier attempt: kept", o.GetKind(), o.GetName())
			return nil
		}
		if err := r.waitGone(ctx, old, logf); err != nil {
			return err
		}
	}
}

// mine refuses an object that is not this Workflow's.
func (r *Runner) mine(o *unstructured.Unstructured) error {
	if got := o.GetLabels()[benchv1.CampaignLabel]; got != r.Workflow.Name {
		return fmt.Errorf("%s %s exists and is not this campaign's (label %s=%q): delete it or rename the Workflow", o.GetKind(), o.GetName(), benchv1.CampaignLabel, got)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
