package mpi

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/yamldoc"
)

// Every MPIBenchmark in examples/ turns into command lines: a spec the API
// server accepts must not fail at the launcher.
func TestExamplesBuildLaunches(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..", "examples")
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		docs, err := yamldoc.ReadFile(path)
		if err != nil {
			return err
		}
		for _, u := range docs {
			if u.GroupVersionKind() != (schema.GroupVersionKind{Group: "benchwright.io", Version: "v1alpha1", Kind: "MPIBenchmark"}) {
				continue
			}
			var b benchv1.MPIBenchmark
			if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &b); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			b.Spec.Layout.RanksPerNode = b.Spec.Layout.RanksPerNodeOrDefault() // the CRD's default
			l, err := BuildLaunch(&b.Spec, Options{})
			if err != nil {
				t.Errorf("%s: %s: %v", path, b.Name, err)
				continue
			}
			n++
			t.Logf("%s: %s", b.Name, strings.Join(l.Steps[0].Argv, " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Errorf("only %d MPIBenchmarks found in examples/", n)
	}
}
