package storagebenchmark

import (
	"context"
	"fmt"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
	"github.com/benchwright/benchwright/test/wrappers"
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
	var jobs []benchv1.FioJob
	for i := range 8 {
		jobs = append(jobs, benchv1.FioJob{Name: fmt.Sprintf("job-%d", i), RW: "randrw"})
	}
	bench := wrappers.MakeStorageBenchmark("big", "ns").UID("uid").FioJobs(jobs...).Obj()
	pod := wrappers.MakePod("big-0", "ns").NodeName("node-a").Container(fioContainer, "").Obj()
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
