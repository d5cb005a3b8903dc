package specs

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Object is an object of kind named name whose spec is the YAML spec; a
// benchmark (namespaced) goes in namespace.
func Object(t *testing.T, kind, name, namespace, spec string) *unstructured.Unstructured {
	t.Helper()
	var s map[string]any
	if err := yaml.Unmarshal([]byte(spec), &s); err != nil {
		t.Fatalf("bad test spec: %v", err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": s}}
	obj.SetAPIVersion("benchwright.io/v1alpha1")
	obj.SetKind(kind)
	obj.SetName(name)
	if kind == "StorageBenchmark" || kind == "MPIBenchmark" || kind == "NetworkBenchmark" {
		obj.SetNamespace(namespace)
	}
	return obj
}
