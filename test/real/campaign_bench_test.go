//go:build real

package real

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// A campaign of one cell (one existing pool, untuned, one short fio
// StorageBenchmark) under the real Argo controller, against the same pool
// and StorageBenchmark created directly (kubectl apply, wait Succeeded,
// delete the pool and wait), alternated (PAIRS, default 5). Prints each
// pair's wall times, their difference (what the campaign adds: its check,
// cell and exit-handler pods) and ratio, and the cell's own overhead (the
// cell step's time less its benchmark's).
//
//	make bench-real-campaign
func BenchmarkCampaignCellVsDirect(b *testing.B) {
	needArgo(b)
	pairs := 5
	if p, err := strconv.Atoi(os.Getenv("PAIRS")); err == nil && p > 0 {
		pairs = p
	}
	var lines []string
	var diffs, ratios, cellOverheads []float64
	for i := range pairs {
		var camp, direct time.Duration
		var overhead float64
		if i%2 == 0 {
			camp, overhead = campaignOnce(b, i)
			direct = directOnce(b, i)
		} else {
			direct = directOnce(b, i)
			camp, overhead = campaignOnce(b, i)
		}
		diffs = append(diffs, (camp - direct).Seconds())
		ratios = append(ratios, camp.Seconds()/direct.Seconds())
		cellOverheads = append(cellOverheads, overhead)
		order := map[bool]string{true: "campaign first", false: "direct first"}[i%2 == 0]
		lines = append(lines, fmt.Sprintf("pair %d (%s): campaign %.1fs, direct %.1fs: +%.1fs, x%.2f; the cell step's overhead %.1fs",
			i+1, order, camp.Seconds(), direct.Seconds(), (camp-direct).Seconds(), camp.Seconds()/direct.Seconds(), overhead))
	}
	b.Logf("one cell, submission to completion, %d alternated pairs:\n%s\nmedian: the campaign adds %.1fs (x%.2f); a cell step's own overhead %.1fs",
		pairs, strings.Join(lines, "\n"), median(diffs), median(ratios), median(cellOverheads))
	b.ReportMetric(median(diffs), "s-added/campaign")
	b.ReportMetric(median(cellOverheads), "s-overhead/cell")
}

// campaignOnce runs the one-cell campaign: submission to the Workflow's
// completion, and its cell step's time less its benchmark's.
func campaignOnce(b *testing.B, i int) (time.Duration, float64) {
	began := time.Now()
	wf := submitCampaign(b, map[string]string{
		"pools":        `[{"name": "one"}]`,
		"poolDefaults": `{"provider": "existing", "existing": {"nodeSelector": {"benchwright.io/real-node": "true"}}}`,
		"benchmarks":   mustJSON(b, []map[string]any{{"name": "fio", "kind": "StorageBenchmark", "spec": fioSpec()}}),
	}, 0)
	if phase := waitWorkflow(b, wf, 10*time.Minute); phase != "Succeeded" {
		b.Fatalf("pair %d: Workflow %s %s: %s", i+1, wf.GetName(), phase, workflowMessage(wf))
	}
	took := time.Since(began)
	return took, cellOverhead(wf)
}

// cellOverhead is the cell step's time less its benchmarks' (its outcome).
func cellOverhead(wf *unstructured.Unstructured) float64 {
	raw, _, _ := unstructured.NestedMap(wf.Object, "status", "nodes")
	for _, v := range raw {
		n, _ := v.(map[string]any)
		if n["templateName"] == "cell" && n["type"] == "Pod" {
			return stepSeconds(n) - outcomeSeconds(n)["benchmarks"]
		}
	}
	return 0
}

// directOnce creates the pool and the benchmark by hand, as without Argo:
// created to pool gone.
func directOnce(b *testing.B, i int) time.Duration {
	began := time.Now()
	name := fmt.Sprintf("direct-%d-%d", time.Now().Unix()%100000, i)
	pool := &benchv1.BenchmarkPool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkPoolSpec{Provider: benchv1.ProviderExisting,
			Existing: &benchv1.ExistingPoolSpec{NodeSelector: map[string]string{"benchwright.io/real-node": "true"}}},
	}
	if err := k8s.Create(ctx(), pool); err != nil {
		b.Fatal(err)
	}
	util.WaitFor(b, 5*time.Minute, "pool "+name+" Ready", func() (bool, string) {
		err := k8s.Get(ctx(), client.ObjectKeyFromObject(pool), pool)
		return err == nil && pool.Status.State == "Ready", pool.Status.State
	})
	sb := &benchv1.StorageBenchmark{}
	spec := fioSpec()
	spec["pool"] = name
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": benchv1.GroupVersion.String(), "kind": "StorageBenchmark",
		"metadata": map[string]any{"name": name, "namespace": campaignNamespace}, "spec": spec}}
	if err := k8s.Create(ctx(), obj); err != nil {
		b.Fatal(err)
	}
	util.WaitFor(b, 10*time.Minute, "StorageBenchmark "+name+" Succeeded", func() (bool, string) {
		err := k8s.Get(ctx(), client.ObjectKey{Namespace: campaignNamespace, Name: name}, sb)
		return err == nil && sb.Status.State == benchv1.StateSucceeded, string(sb.Status.State)
	})
	if err := k8s.Delete(ctx(), pool); err != nil {
		b.Fatal(err)
	}
	util.WaitFor(b, 5*time.Minute, "pool "+name+" gone", func() (bool, string) {
		err := k8s.Get(ctx(), client.ObjectKeyFromObject(pool), &benchv1.BenchmarkPool{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	took := time.Since(began)
	_ = k8s.Delete(ctx(), sb)
	return took
}
