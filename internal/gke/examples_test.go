package gke_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/internal/yamldoc"
	"github.com/benchwright/benchwright/test/fakegke"
)

// Every GKE pool of examples/ is one GKE accepts: built for a regional
// cluster on the REGULAR channel with the chart's default zone, as the chart
// README installs it, and created on the fake, which checks it as GKE does.
func TestExamplePoolsAreAcceptedByGKE(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..", "examples")
	regional := gke.Cluster{Project: "my-project", Location: "us-central1", Name: "hpc"}
	srv, p := start(t, fakegke.WithCluster(regional.Parent()),
		fakegke.WithClusterConfig(fakegke.Cluster{Parent: "projects/my-project/locations/us-central1/clusters/sa",
			ServiceAccounts: []string{"benchwright-nodes@my-project.iam.gserviceaccount.com"}}))
	srv.FinishOperations()
	ctx := context.Background()
	found := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		docs, err := yamldoc.ReadFile(path)
		if err != nil {
			return err
		}
		for _, u := range docs {
			var pool benchv1.BenchmarkPool
			if u.GetKind() != "BenchmarkPool" {
				continue
			}
			if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pool); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if pool.Spec.GKE == nil {
				continue
			}
			found++
			c := regional
			if pool.Spec.GKE.ServiceAccount != "" {
				c.Name = "sa" // a cluster whose caller may act as the example's account
			}
			info, err := p.Cluster(ctx, c, true)
			if err != nil {
				t.Fatal(err)
			}
			np, err := gke.NodePoolRequest(pool.Name, "uid", pool.Spec.GKE, gke.Target{Cluster: c, Info: info, DefaultZone: "us-central1-a"})
			if err != nil {
				t.Errorf("%s: %s: %v", path, pool.Name, err)
				continue
			}
			if _, err := p.Create(ctx, c, np); err != nil {
				t.Errorf("%s: %s: GKE refuses it: %v", path, pool.Name, err)
			}
			srv.FinishOperations()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Fatalf("only %d GKE pools found under %s", found, root)
	}
	t.Logf("%d example GKE pools accepted", found)
}
