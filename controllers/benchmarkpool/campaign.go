package benchmarkpool

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaigngc"
	"github.com/benchwright/benchwright/internal/conditions"
)

// reasonRestoringNodes: a deleted pool keeps its nodes while a TuningProfile
// on it restores them.
const reasonRestoringNodes = "RestoringNodes"

// collect deletes a campaign's pool once the Workflow that made it is gone
// (see campaigngc), but only after the profiles of that Workflow on the
// pool are deleted: their finalizer restores the nodes, which the pool's
// finalizer then holds until they are restored (restoringProfiles).
func (r *Reconciler) collect(ctx context.Context, p *benchv1.BenchmarkPool) (deleted bool, recheck time.Duration, err error) {
	c := campaigngc.Collector{Reader: r.APIReader, Client: r.Client, Recorder: r.Recorder, Recheck: r.WorkflowRecheck}
	if uid := p.Annotations[benchv1.WorkflowUIDAnnotation]; uid != "" && r.APIReader != nil {
		profiles, err := r.profilesOn(ctx, p.Name, func(tp *benchv1.TuningProfile) bool {
			return tp.DeletionTimestamp.IsZero() && tp.Annotations[benchv1.WorkflowUIDAnnotation] == uid
		})
		if err != nil || len(profiles) > 0 {
			return false, c.Every(), err // they go first
		}
	}
	return c.Collect(ctx, p)
}

// restoringProfiles holds a deleted pool's nodes while TuningProfiles on it
// are deleted and restore them: released first, the nodes would leave the
// profile's selection and its restore would go unconfirmed. waiting says it
// holds them; the Deleting condition says for which profiles.
func (r *Reconciler) restoringProfiles(ctx context.Context, p *benchv1.BenchmarkPool) (waiting bool, err error) {
	profiles, err := r.profilesOn(ctx, p.Name, func(tp *benchv1.TuningProfile) bool { return !tp.DeletionTimestamp.IsZero() })
	if err != nil || len(profiles) == 0 {
		return false, err
	}
	conditions.Set(p, benchv1.PoolConditionDeleting, metav1.ConditionTrue, reasonRestoringNodes,
		fmt.Sprintf("keeping the nodes until TuningProfile %s restored them", strings.Join(profiles, ", ")))
	return true, nil
}

// profilesOn names the TuningProfiles on pool that match.
func (r *Reconciler) profilesOn(ctx context.Context, pool string, match func(*benchv1.TuningProfile) bool) ([]string, error) {
	var list benchv1.TuningProfileList
	if err := r.List(ctx, &list); err != nil {
		return nil, err
	}
	var out []string
	for i := range list.Items {
		if tp := &list.Items[i]; string(tp.Spec.Pool) == pool && match(tp) {
			out = append(out, tp.Name)
		}
	}
	return out, nil
}

func tuningProfilePool(o client.Object) benchv1.PoolName { return o.(*benchv1.TuningProfile).Spec.Pool }

// profileLeaving passes the TuningProfile events that can unblock its pool:
// the profile marked for deletion, or gone.
var profileLeaving = predicate.Funcs{
	CreateFunc: func(event.CreateEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetDeletionTimestamp().IsZero() && !e.ObjectNew.GetDeletionTimestamp().IsZero()
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
}
