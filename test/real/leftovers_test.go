//go:build real

package real

import (
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// sweepLeftovers deletes what an earlier run on a cluster already up left
// when it was killed before its cleanups (or kept with REAL_KEEP): the tests'
// campaign Workflows and namespaces (real-...), every BenchmarkPool and
// TuningProfile. A pool left Ready holds its nodes, and every test after
// would wait on them until its timeout. It returns once the pools are gone
// (their finalizers release the nodes).
func sweepLeftovers() error {
	ours := func(o client.Object) bool {
		return strings.HasPrefix(o.GetName(), "real-") && o.GetDeletionTimestamp() == nil
	}
	var workflows unstructured.UnstructuredList
	workflows.SetGroupVersionKind(workflowGVK.GroupVersion().WithKind("WorkflowList"))
	var swept []string
	for _, s := range []struct {
		what string
		list client.ObjectList
		keep func(client.Object) bool
		opts []client.ListOption
	}{
		{"Workflow", &workflows, ours, []client.ListOption{client.InNamespace(campaignNamespace)}},
		{"namespace", &corev1.NamespaceList{}, ours, nil},
		{"pool", &benchv1.BenchmarkPoolList{}, nil, nil},
		{"tuning profile", &benchv1.TuningProfileList{}, nil, nil},
	} {
		names, err := deleteEach(s.what, s.list, s.keep, s.opts...)
		if meta.IsNoMatchError(err) { // no Argo on this cluster
			continue
		}
		if err != nil {
			return err
		}
		swept = append(swept, names...)
	}
	if len(swept) == 0 {
		return nil
	}
	fmt.Fprintf(os.Stderr, "real: left by an earlier run on this cluster, deleted: %s\n", strings.Join(swept, ", "))
	var pools benchv1.BenchmarkPoolList
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

// deleteEach deletes the objects of list (listed with opts) that keep takes
// (all when keep is nil), and names them ("what name").
func deleteEach(what string, list client.ObjectList, keep func(client.Object) bool, opts ...client.ListOption) ([]string, error) {
	if err := k8s.List(ctx(), list, opts...); err != nil {
		return nil, err
	}
	var names []string
	err := meta.EachListItem(list, func(o runtime.Object) error {
		obj := o.(client.Object)
		if keep != nil && !keep(obj) {
			return nil
		}
		if err := k8s.Delete(ctx(), obj); client.IgnoreNotFound(err) != nil {
			return err
		}
		names = append(names, what+" "+obj.GetName())
		return nil
	})
	return names, err
}
