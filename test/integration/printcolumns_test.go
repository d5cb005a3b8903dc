package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/wrappers"
)

// TestKubectlGetColumns reads benchmarks as kubectl does (the server-side Table)
// and checks that a person sees layout, progress, the headline figures and state.
func TestKubectlGetColumns(t *testing.T) {
	ctx := testContext(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "columns-"}}
	if err := k8sClient.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	bench := wrappers.MakeMPIBenchmark("osu-off-node", ns.Name).Pool("c3").Tests("osu_latency", "osu_bw").Layout(2, 1).
		Implementation(benchv1.MPICH).Obj()
	if err := k8sClient.Create(ctx, bench); err != nil {
		t.Fatal(err)
	}
	bench.Status.Layout = "2x1 core"
	bench.Status.Progress = "2/5"
	bench.Status.State = benchv1.StateRunning
	bench.Status.Summary = benchv1.MPISummary{LatencyMicroseconds: ptr.To(8.21), PeakBandwidthMBps: ptr.To(12345.6)}
	if err := k8sClient.Status().Update(ctx, bench); err != nil {
		t.Fatal(err)
	}

	table := getTable(t, fmt.Sprintf("/apis/benchwright.io/v1alpha1/namespaces/%s/mpibenchmarks", ns.Name))
	var names []string
	for _, c := range table.ColumnDefinitions {
		if c.Priority == 0 {
			names = append(names, c.Name)
		}
	}
	want := []string{"Name", "Suite", "Layout", "MPI", "Progress", "Latency(us)", "Peak(MB/s)", "State", "Queue", "Age"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if len(table.Rows) != 1 {
		t.Fatalf("got %d rows", len(table.Rows))
	}
	got := fmt.Sprint(table.Rows[0].Cells[:8])
	if wantRow := "[osu-off-node osu 2x1 core MPICH 2/5 8.21 12345.6 Running]"; got != wantRow {
		t.Errorf("row = %s, want %s", got, wantRow)
	}
}

func getTable(t *testing.T, path string) metav1.Table {
	t.Helper()
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, resp.Status, body)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatal(err)
	}
	return table
}
