package campaign

import (
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// waitPool waits for the pool to be Ready, up to PoolTimeout; Failed ends
// the wait with the pool's reason. A pool whose nodes another pool holds
// stays NotReady until they are free, and the wait goes on.
func (r *Runner) waitPool(ctx context.Context, name string, logf func(string, ...any)) error {
	o := r.emptyObject("BenchmarkPool", name, "")
	return r.explainGone(ctx, o, r.waitFor(ctx, o, r.PoolTimeout, logf, func() (bool, error) {
		switch state(o) {
		case "Ready":
			nodes, _, _ := unstructured.NestedStringSlice(o.Object, "status", "nodes")
			logf("BenchmarkPool %s Ready: nodes %v", name, nodes)
			return true, nil
		case "Failed":
			return false, fmt.Errorf("BenchmarkPool %s Failed: %s", name, condition(o, benchv1.PoolConditionReady))
		}
		return false, nil
	}))
}

// waitTuning waits for every node of the pool to read the tuning's values
// back (Tuned); Degraded (a value refused, or not reading back) ends it.
func (r *Runner) waitTuning(ctx context.Context, name string, logf func(string, ...any)) error {
	o := r.emptyObject("TuningProfile", name, "")
	return r.explainGone(ctx, o, r.waitFor(ctx, o, r.PoolTimeout, logf, func() (bool, error) {
		switch state(o) {
		case string(benchv1.TuningTuned):
			logf("TuningProfile %s Tuned", name)
			return true, nil
		case string(benchv1.TuningDegraded):
			return false, fmt.Errorf("TuningProfile %s Degraded: %s", name, condition(o, benchv1.TuningConditionDegraded))
		}
		return false, nil
	}))
}

// waitBenchmark waits for a benchmark to end, and says how it ended. Its own
// time limits bound it; the step's deadline bounds the whole cell.
func (r *Runner) waitBenchmark(ctx context.Context, b *unstructured.Unstructured, logf func(string, ...any)) (Outcome, error) {
	o := r.emptyObject(b.GetKind(), b.GetName(), b.GetNamespace())
	var out Outcome
	err := r.waitFor(ctx, o, 0, logf, func() (bool, error) {
		s := state(o)
		if s != string(benchv1.StateSucceeded) && s != string(benchv1.StateFailed) {
			return false, nil
		}
		out = Outcome{Kind: b.GetKind(), Name: b.GetName(), State: s}
		out.Headline, _, _ = unstructured.NestedString(o.Object, "status", "headline")
		if s == string(benchv1.StateFailed) {
			out.Reason, out.Message = conditionReason(o, benchv1.ConditionFailed)
		}
		logf("%s %s %s %s", out.Kind, out.Name, s, firstOf(out.Headline, out.Reason+": "+out.Message))
		return true, nil
	})
	return out, err
}

// waitGone waits for an object being deleted to be gone (its finalizers
// done), up to ReleaseTimeout.
func (r *Runner) waitGone(ctx context.Context, o *unstructured.Unstructured, logf func(string, ...any)) error {
	cur := r.emptyObject(o.GetKind(), o.GetName(), o.GetNamespace())
	err := r.waitFor(ctx, cur, r.ReleaseTimeout, logf, func() (bool, error) { return false, nil })
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("%s %s is still there", o.GetKind(), o.GetName())
	}
	return err
}

// waitFor reads o every Poll until done says so or fails, or timeout (0:
// none) passes; a NotFound object ends it with that error.
func (r *Runner) waitFor(ctx context.Context, o *unstructured.Unstructured, timeout time.Duration, logf func(string, ...any), done func() (bool, error)) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	tick := time.NewTicker(r.Poll)
	defer tick.Stop()
	last := ""
	for {
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s %s: %w (state %s)", o.GetKind(), o.GetName(), ctx.Err(), orDash(last))
			}
			return err
		}
		if s := state(o); s != last {
			if last != "" || s != "" {
				logf("%s %s: %s", o.GetKind(), o.GetName(), orDash(s))
			}
			last = s
		}
		if ok, err := done(); ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s %s: still %s: %w", o.GetKind(), o.GetName(), orDash(last), ctx.Err())
		case <-tick.C:
		}
	}
}

// stepLog prints a line per event to w, with the seconds since it was made.
func stepLog(w io.Writer) func(string, ...any) {
	began := time.Now()
	return func(format string, a ...any) {
		fmt.Fprintf(w, "%7.1fs  %s\n", time.Since(began).Seconds(), fmt.Sprintf(format, a...))
	}
}

func (r *Runner) emptyObject(kind, name, ns string) *unstructured.Unstructured {
	o := object(kind, name, nil)
	delete(o.Object, "spec")
	o.SetNamespace(ns)
	return o
}

func state(o *unstructured.Unstructured) string {
	s, _, _ := unstructured.NestedString(o.Object, "status", "state")
	return s
}

// condition is a condition's reason and message, as one.
func condition(o *unstructured.Unstructured, typ string) string {
	reason, msg := conditionReason(o, typ)
	if reason == "" && msg == "" {
		return "(no " + typ + " condition)"
	}
	return reason + ": " + msg
}

func conditionReason(o *unstructured.Unstructured, typ string) (string, string) {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		reason, _ := m["reason"].(string)
		msg, _ := m["message"].(string)
		return reason, msg
	}
	return "", ""
}

// failure is a failed benchmark's reason and message.
func failure(o *unstructured.Unstructured) string { return condition(o, benchv1.ConditionFailed) }

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
