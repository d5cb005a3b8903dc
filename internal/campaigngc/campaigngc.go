// Package campaigngc deletes a campaign's BenchmarkPools and TuningProfiles
// once the Argo Workflow that made them is gone. They are cluster-scoped and
// so cannot be owned by the namespaced Workflow: a Workflow deleted mid-run
// (its exit handler never runs) would leak them, and a leaked pool keeps its
// nodes. The campaign step names the Workflow on each of them
// (benchv1.WorkflowAnnotation, benchv1.WorkflowUIDAnnotation); their
// controllers ask Collector.Collect on every reconcile, which looks the
// Workflow up around the cache (no informer on Workflows) and deletes the
// object when it is gone.
package campaigngc

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Workflow is the Argo Workflow a campaign's object names.
type Workflow struct {
	Key types.NamespacedName
	UID types.UID
}

func (w Workflow) String() string { return w.Key.String() }

// Of reads the Workflow obj's annotations name. ok is false when obj lacks
// either annotation (a pool a person labelled with a campaign by hand):
// such an object is never collected. err says why annotations that are
// both there do not name a Workflow.
func Of(obj metav1.Object) (w Workflow, ok bool, err error) {
	name, hasName := obj.GetAnnotations()[benchv1.WorkflowAnnotation]
	uid, hasUID := obj.GetAnnotations()[benchv1.WorkflowUIDAnnotation]
	if !hasName || !hasUID {
		return Workflow{}, false, nil
	}
	ns, n, found := strings.Cut(name, "/")
	switch {
	case !found || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(n)) > 0:
		return Workflow{}, true, fmt.Errorf("annotation %s=%q is not NAMESPACE/NAME of a Workflow", benchv1.WorkflowAnnotation, name)
	case uid == "":
		return Workflow{}, true, fmt.Errorf("annotation %s is empty", benchv1.WorkflowUIDAnnotation)
	}
	return Workflow{Key: types.NamespacedName{Namespace: ns, Name: n}, UID: types.UID(uid)}, true, nil
}

// Verdict is what becomes of an object whose Workflow was looked up.
type Verdict int

const (
	// Alive is the verdict when the Workflow that made the object exists:
	// look again later.
	Alive Verdict = iota
	// Gone is the verdict when the Workflow is gone: delete the object.
	Gone
	// Unknown is the verdict when the lookup failed (Forbidden,
	// unreachable): keep the object and look again later.
	Unknown
)

// Judge decides on an object that names w, given the lookup of w: the live
// Workflow's UID, or the lookup's error. A Workflow is gone when it is not
// found, when another of its name replaced it (another UID), or when
// Workflows are not served at all (Argo uninstalled with its CRD, and with
// it every Workflow). Any other error decides nothing. why is for the Event
// (Gone) or the log (Unknown).
func Judge(w Workflow, live types.UID, err error) (v Verdict, why string) {
	switch {
	case apierrors.IsNotFound(err):
		return Gone, fmt.Sprintf("Workflow %s is gone", w)
	case meta.IsNoMatchError(err):
		return Gone, fmt.Sprintf("Workflow %s is gone: the API server serves no Workflows (Argo Workflows uninstalled)", w)
	case err != nil:
		return Unknown, fmt.Sprintf("Workflow %s cannot be looked up: %v", w, err)
	case live != w.UID:
		return Gone, fmt.Sprintf("Workflow %s with UID %s is gone (one of that name with UID %s replaced it)", w, w.UID, live)
	}
	return Alive, ""
}
