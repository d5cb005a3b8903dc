package storagebenchmark

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

// fixedLog serves one log for every container.
type fixedLog []byte

func (l fixedLog) ReadLog(context.Context, string, string, string) ([]byte, error) { return l, nil }

// BenchmarkCollectLargeFio reads, parses, labels and stores one pod's 4 MiB
// fio report of 600 jobs, 8 of which the spec asked for.
func BenchmarkCollectLargeFio(b *testing.B) {
	ctx := context.Background()
	store, err := artifacts.Open(ctx, "file://"+b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	log := fixtures.LargeFioReport(b, 600)
	bench := &benchv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "big", UID: "uid"}}
	bench.Spec.Fio = &benchv1.FioSpec{}
	for i := range 8 {
		bench.Spec.Fio.Jobs = append(bench.Spec.Fio.Jobs, benchv1.FioJob{Name: fmt.Sprintf("job-%d", i), RW: "randrw"})
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "big-0"},
		Spec: corev1.PodSpec{NodeName: "node-a", Containers: []corev1.Container{{Name: fioContainer}}}}
	r := &Reconciler{Env: benchrun.Env{Logs: fixedLog(log), Store: store}}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := r.readOutput(ctx, bench, pod)
		if err != nil {
			b.Fatal(err)
		}
		labelSamples(bench, &out, 0, 0)
		if _, err := r.Run(bench, kind, nil).AddRepetition(ctx, 0, out.samples, []results.NodeInfo{out.node}, results.SummarizeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
