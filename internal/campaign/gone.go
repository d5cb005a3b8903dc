package campaign

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaigngc"
)

// explainGone is err, or, when it says an object the cell had read (o, as
// last read) is gone, why (vanished).
func (r *Runner) explainGone(ctx context.Context, o *unstructured.Unstructured, err error) error {
	if !apierrors.IsNotFound(err) || o.GetResourceVersion() == "" {
		return err
	}
	return r.vanished(ctx, o, err)
}

// vanished explains a pool or tuning that is gone while the cell waited on
// it (err, a NotFound): who deleted it and why as the manager told the
// Workflow (campaigngc.Tell: IdleExpired ...), or that nothing told; and how
// the cell last saw it. The error still matches apierrors.IsNotFound.
func (r *Runner) vanished(ctx context.Context, last *unstructured.Unstructured, err error) error {
	kind, name := last.GetKind(), last.GetName()
	why := r.whyGone(ctx, kind, name)
	seen := "it was last " + orDash(state(last))
	if typ := readyType(kind); typ != "" {
		seen += " (" + typ + " " + condition(last, typ) + ")"
	}
	if ts := last.GetDeletionTimestamp(); ts != nil {
		seen += fmt.Sprintf(", being deleted since %s", ts.UTC().Format("15:04:05Z"))
	}
	return fmt.Errorf("%s %s was deleted while this cell waited on it: %s; %s: %w", kind, name, why, seen, err)
}

// whyGone is what the manager's events on the Workflow say of the object,
// or that none does.
func (r *Runner) whyGone(ctx context.Context, kind, name string) string {
	events, err := WorkflowEvents(ctx, r.Client, r.Workflow)
	if err != nil {
		return "the Workflow's events cannot be read (" + err.Error() + ")"
	}
	if told := campaigngc.Told(events, kind, name); told != "" {
		return "the manager said " + told
	}
	return "no event of the manager's says why (deleted by a person or another client, not by its TTL)"
}

// WorkflowEvents are the events on the campaign's Workflow, where the
// manager says what became of its pools and tunings (campaigngc.Tell).
func WorkflowEvents(ctx context.Context, c client.Reader, wf Workflow) ([]corev1.Event, error) {
	var list corev1.EventList
	if err := c.List(ctx, &list, client.InNamespace(wf.Namespace), client.MatchingFields{"involvedObject.name": wf.Name}); err != nil {
		return nil, fmt.Errorf("listing the events of Workflow %s: %w", wf.Name, err)
	}
	return list.Items, nil
}

// readyType is the condition that says why a pool or tuning is not ready.
func readyType(kind string) string {
	switch kind {
	case "BenchmarkPool":
		return benchv1.PoolConditionReady
	case "TuningProfile":
		return benchv1.TuningConditionTuned
	}
	return ""
}
