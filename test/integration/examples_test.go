package integration

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/yamldoc"
	"github.com/benchwright/benchwright/test/util"
)

// TestExamplesAreAccepted creates every object of every YAML file under examples/
// with strict field validation, so a typo in an example fails here rather than
// being dropped silently by the API server.
func TestExamplesAreAccepted(t *testing.T) {
	ctx := testContext(t)
	root := filepath.Join(util.RepoRoot(), "examples")
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found %d example files under %s, want the quickstart and the seed scenarios", len(files), root)
	}
	for i, path := range files {
		rel, _ := filepath.Rel(root, path)
		t.Run(rel, func(t *testing.T) {
			objs, err := yamldoc.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) == 0 {
				t.Fatal("no objects in file")
			}
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "examples-"}}
			if err := k8sClient.Create(ctx, ns); err != nil {
				t.Fatal(err)
			}
			for _, obj := range objs {
				if !strings.HasPrefix(obj.GetAPIVersion(), "benchwright.io/") {
					continue // Argo workflows and the like are validated elsewhere
				}
				if isNamespaced(obj) {
					obj.SetNamespace(ns.Name)
				} else {
					// Cluster-scoped names may repeat across files: make them unique.
					obj.SetName(obj.GetName() + "-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26))
				}
				if err := k8sClient.Create(ctx, obj, client.FieldValidation("Strict")); err != nil {
					t.Errorf("%s %s: %v", obj.GetKind(), obj.GetName(), err)
					continue
				}
				t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })
			}
		})
	}
}

func isNamespaced(obj *unstructured.Unstructured) bool {
	switch obj.GetKind() {
	case "BenchmarkPool", "TuningProfile":
		return false
	}
	return true
}

// Every pool a benchmark of examples/ names is a BenchmarkPool of
// examples/ (a campaign's benchmarks get theirs from the campaign).
func TestExamplePoolsAreDefined(t *testing.T) {
	root := filepath.Join(util.RepoRoot(), "examples")
	pools := map[string]bool{}
	named := map[string]string{} // pool -> where a benchmark names it
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		objs, err := yamldoc.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, obj := range objs {
			if obj.GetKind() == "BenchmarkPool" {
				pools[obj.GetName()] = true
			}
			if pool, _, _ := unstructured.NestedString(obj.Object, "spec", "pool"); pool != "" && strings.HasSuffix(obj.GetKind(), "Benchmark") {
				named[pool] = rel + ": " + obj.GetName()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(named) < 5 {
		t.Fatalf("only %d pools named by the examples' benchmarks: the walk misses some", len(named))
	}
	for pool, where := range named {
		if !pools[pool] {
			t.Errorf("%s runs on pool %q, which no example defines", where, pool)
		}
	}
}
