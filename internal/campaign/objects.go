package campaign

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Labels on a campaign's benchmarks that name their cell: the report groups
// and compares runs by them.
const (
	PoolLabel      = "benchwright.io/campaign-pool"
	TuningLabel    = "benchwright.io/campaign-tuning"
	BenchmarkLabel = "benchwright.io/campaign-benchmark"
)

// Workflow is the Argo Workflow a campaign runs as.
type Workflow struct {
	Namespace, Name string
	UID             types.UID
}

// Cell is a pool and a tuning of the matrix.
type Cell struct {
	Pool, Tuning Entry
}

// String is the cell as a person names it: pool/tuning.
func (c Cell) String() string { return c.Pool.Name + "/" + c.Tuning.Name }

// Tuned says whether the cell has a TuningProfile.
func (c Cell) Tuned() bool { return c.Tuning.Name != UntunedName }

// Cells are every pool x tuning, pool by pool.
func (m *Matrix) Cells() []Cell {
	var out []Cell
	for _, p := range m.Pools {
		for _, t := range m.Tunings {
			out = append(out, Cell{p, t})
		}
	}
	return out
}

// Cell finds the cell of a pool and a tuning by name.
func (m *Matrix) Cell(pool, tuning string) (Cell, error) {
	for _, c := range m.Cells() {
		if c.Pool.Name == pool && c.Tuning.Name == tuning {
			return c, nil
		}
	}
	return Cell{}, fmt.Errorf("no cell %s/%s: the pools are %s, the tunings %s", pool, tuning, names(m.Pools), names(m.Tunings))
}

// PoolName names the cell's BenchmarkPool, and its TuningProfile (a
// campaign's profile is named after the pool it tunes): one per cell, or one
// per pool when its tunings share it.
func (m *Matrix) PoolName(wf Workflow, c Cell) string {
	if m.SharePool {
		return wf.Name + "-" + c.Pool.Name
	}
	return wf.Name + "-" + c.Pool.Name + "-" + c.Tuning.Name
}

// BenchmarkName names a benchmark of the cell.
func BenchmarkName(wf Workflow, c Cell, b Entry) string {
	return wf.Name + "-" + c.Pool.Name + "-" + c.Tuning.Name + "-" + b.Name
}

// PoolObject is the cell's BenchmarkPool: the pool's spec, with what it
// leaves out taken from poolDefaults.
func (m *Matrix) PoolObject(wf Workflow, c Cell) *unstructured.Unstructured {
	spec := runtime.DeepCopyJSON(orEmpty(c.Pool.Spec))
	fill(spec, m.PoolDefaults)
	return m.owned(wf, "BenchmarkPool", m.PoolName(wf, c), spec)
}

// TuningObject is the cell's TuningProfile, on the cell's pool.
func (m *Matrix) TuningObject(wf Workflow, c Cell) *unstructured.Unstructured {
	spec := runtime.DeepCopyJSON(orEmpty(c.Tuning.Spec))
	spec["pool"] = m.PoolName(wf, c)
	return m.owned(wf, "TuningProfile", m.PoolName(wf, c), spec)
}

// owned is a cluster-scoped object of the campaign: labelled with it, and
// annotated with its Workflow, so the manager deletes it once the Workflow
// is gone.
func (m *Matrix) owned(wf Workflow, kind, name string, spec map[string]any) *unstructured.Unstructured {
	o := object(kind, name, spec)
	o.SetLabels(map[string]string{benchv1.CampaignLabel: wf.Name})
	o.SetAnnotations(map[string]string{
		benchv1.WorkflowAnnotation:    wf.Namespace + "/" + wf.Name,
		benchv1.WorkflowUIDAnnotation: string(wf.UID),
	})
	return o
}

// BenchmarkObject is a benchmark of the cell, in the Workflow's namespace and
// owned by it (deleting the Workflow deletes it; its results stay), with
// its expectations' cells resolved (see resolveExpectations).
func (m *Matrix) BenchmarkObject(wf Workflow, c Cell, b Entry) *unstructured.Unstructured {
	spec := runtime.DeepCopyJSON(orEmpty(b.Spec))
	m.resolveExpectations(wf, c, b, spec)
	spec["pool"] = m.PoolName(wf, c)
	delete(spec, "tuning")
	if c.Tuned() {
		spec["tuning"] = m.PoolName(wf, c)
	}
	o := object(b.Kind, BenchmarkName(wf, c, b), spec)
	o.SetNamespace(wf.Namespace)
	labels := map[string]string{}
	for k, v := range b.Labels {
		labels[k] = v
	}
	labels[benchv1.CampaignLabel] = wf.Name
	labels[PoolLabel] = c.Pool.Name
	labels[TuningLabel] = c.Tuning.Name
	labels[BenchmarkLabel] = b.Name
	o.SetLabels(labels)
	if wf.UID != "" {
		o.SetOwnerReferences([]metav1.OwnerReference{{
			APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow", Name: wf.Name, UID: wf.UID,
			BlockOwnerDeletion: ptrTo(true),
		}})
	}
	return o
}

func object(kind, name string, spec map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	o.SetAPIVersion(benchv1.GroupVersion.String())
	o.SetKind(kind)
	o.SetName(name)
	return o
}

// fill copies into dst what it lacks of src, into nested objects too: a
// pool's spec keeps what it sets, poolDefaults give the rest.
func fill(dst, src map[string]any) {
	for k, v := range src {
		have, ok := dst[k]
		if !ok {
			dst[k] = runtime.DeepCopyJSONValue(v)
			continue
		}
		hm, ok1 := have.(map[string]any)
		vm, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			fill(hm, vm)
		}
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func names(es []Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Name)
	}
	return strings.Join(s, ", ")
}

func ptrTo[T any](v T) *T { return &v }
