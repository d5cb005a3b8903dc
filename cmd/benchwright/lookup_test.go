package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Every benchmark kind of the API is found by name and by -l: report,
// compare and results read any of them (issue 29: NetworkBenchmarks were
// never found).
func TestLookupFindsEveryBenchmarkKind(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := benchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var objs []client.Object
	for gvk := range scheme.AllKnownTypes() {
		if gvk.GroupVersion() != benchv1.GroupVersion || !strings.HasSuffix(gvk.Kind, "Benchmark") {
			continue
		}
		o, err := scheme.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := o.(benchmark)
		if !ok {
			t.Fatalf("%s has no BenchmarkStatus", gvk.Kind)
		}
		b.SetName(strings.ToLower(gvk.Kind))
		b.SetNamespace("perf")
		b.SetLabels(map[string]string{benchv1.CampaignLabel: "c1"})
		b.BenchmarkStatus().State = benchv1.StateSucceeded
		b.BenchmarkStatus().ArtifactURI = "gs://bucket/perf/" + gvk.Kind + "/" + b.GetName() + "/uid/"
		kinds = append(kinds, gvk.Kind)
		objs = append(objs, b)
	}
	slices.Sort(kinds)
	if len(kinds) < 3 {
		t.Fatalf("benchmark kinds %v: want StorageBenchmark, MPIBenchmark and NetworkBenchmark at least", kinds)
	}
	other := &benchv1.NetworkBenchmark{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "other", Labels: map[string]string{benchv1.CampaignLabel: "c1"}}}
	other.Status.State = benchv1.StateSucceeded
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(append(objs, other)...).WithStatusSubresource(objs...).Build()
	ctx := context.Background()

	for _, kind := range kinds {
		found, err := clusterFlags{}.find(ctx, c, scheme, "perf", []string{strings.ToLower(kind)})
		if err != nil {
			t.Errorf("%s by name: %v", kind, err)
			continue
		}
		if len(found) != 1 || found[0].kind != kind || !strings.Contains(found[0].uri, "/"+kind+"/") || !found[0].succeeded {
			t.Errorf("%s by name: %+v", kind, found)
		}
	}
	found, err := clusterFlags{selector: benchv1.CampaignLabel + "=c1"}.find(ctx, c, scheme, "perf", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range found {
		got = append(got, b.kind)
	}
	slices.Sort(got)
	if !slices.Equal(got, kinds) {
		t.Errorf("-l found %v, want one of each kind %v in namespace perf", got, kinds)
	}
}
