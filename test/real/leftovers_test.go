//go:build real

package real

import (
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// sweepLeftovers deletes what an earlier run on a cluster already up left when it
// was killed before its cleanups (or kept with REAL_KEEP): the tests'
// namespaces and campaign Workflows (real-...), every BenchmarkPool and
// TuningProfile. A pool left Ready holds its nodes, and every test after
// would wait on them until its timeout. It returns once the pools are gone
// (their finalizers release the nodes).
func sweepLeftovers() error {
	swept, err := sweepWorkflows()
	if err != nil {
		return err
	}
	var namespaces corev1.NamespaceList
	if err := k8s.List(ctx(), &namespaces); err != nil {
		return err
	}
	var pools benchv1.BenchmarkPoolList
	if err := k8s.List(ctx(), &pools); err != nil {
		return err
	}
	for i := range namespaces.Items {
		ns := &namespaces.Items[i]
		if strings.HasPrefix(ns.Name, "real-") && ns.DeletionTimestamp == nil {
			if err := k8s.Delete(ctx(), ns); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			swept = append(swept, "namespace "+ns.Name)
		}
	}
	for i := range pools.Items {
		if err := k8s.Delete(ctx(), &pools.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		swept = append(swept, "pool "+pools.Items[i].Name)
	}
	var profiles benchv1.TuningProfileList
	if err := k8s.List(ctx(), &profiles); err != nil {
		return err
	}
	for i := range profiles.Items {
		if err := k8s.Delete(ctx(), &profiles.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		swept = append(swept, "tuning profile "+profiles.Items[i].Name)
	}
	if len(swept) == 0 {
		return nil
	}
	fmt.Fprintf(os.Stderr, "real: left by an earlier run on this cluster, deleted: %s\n", strings.Join(swept, ", "))
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		if err := k8s.List(ctx(), &pools); err != nil {
			return err
		}
		if len(pools.Items) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d BenchmarkPools left by an earlier run still there 2 minutes after their deletion (%s): is the manager running?", len(pools.Items), pools.Items[0].Name)
		}
	}
}

// sweepWorkflows deletes the campaign Workflows the tests submitted (real-...),
// where Argo is installed.
func sweepWorkflows() ([]string, error) {
	var list unstructured.UnstructuredList
	list.SetGroupVersionKind(workflowGVK.GroupVersion().WithKind("WorkflowList"))
	if err := k8s.List(ctx(), &list, client.InNamespace(campaignNamespace)); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, err
	}
	var swept []string
	for i := range list.Items {
		wf := &list.Items[i]
		if !strings.HasPrefix(wf.GetName(), "real-") {
			continue
		}
		if err := k8s.Delete(ctx(), wf); err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		swept = append(swept, "Workflow "+wf.GetName())
	}
	return swept, nil
}
