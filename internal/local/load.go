// Package local runs a benchmark spec on this machine: the same spec, the same
// parsers and the same result files as in a cluster, with local directories
// instead of volumes and local ranks instead of MPI workers.
package local

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/validation"
	"github.com/benchwright/benchwright/internal/yamldoc"
)

// Spec is a benchmark read from a file: exactly one of the pointers is set.
type Spec struct {
	Storage *benchv1.StorageBenchmark
	MPI     *benchv1.MPIBenchmark
	Network *benchv1.NetworkBenchmark
}

// Name is the benchmark's name.
func (s Spec) Name() string {
	switch {
	case s.Storage != nil:
		return s.Storage.Name
	case s.Network != nil:
		return s.Network.Name
	}
	return s.MPI.Name
}

// LoadFile reads the benchmarks of a YAML file. Each benchmark is validated
// and defaulted as the API server would on create (internal/validation: the
// CRDs' schemas, defaults and CEL rules; unknown or miscased fields are
// errors), then decoded. Other kinds (pools, tuning profiles) are skipped and
// named in skipped: they need a cluster.
func LoadFile(path string) (specs []Spec, skipped []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	objs, err := yamldoc.Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, obj := range objs {
		var spec Spec
		var into any
		switch obj.GetKind() {
		case "StorageBenchmark":
			spec.Storage = &benchv1.StorageBenchmark{}
			into = spec.Storage
		case "MPIBenchmark":
			spec.MPI = &benchv1.MPIBenchmark{}
			into = spec.MPI
		case "NetworkBenchmark":
			spec.Network = &benchv1.NetworkBenchmark{}
			into = spec.Network
		default:
			skipped = append(skipped, fmt.Sprintf("%s %s", obj.GetKind(), obj.GetName()))
			continue
		}
		where := fmt.Sprintf("%s: document %d (%s %q)", path, i+1, obj.GetKind(), obj.GetName())
		if err := validateInto(obj, into); err != nil {
			return nil, nil, fmt.Errorf("%s %w", where, err)
		}
		specs = append(specs, spec)
	}
	if len(specs) == 0 {
		return nil, skipped, fmt.Errorf("%s: no StorageBenchmark, MPIBenchmark or NetworkBenchmark in the file", path)
	}
	return specs, skipped, nil
}

// validateInto validates and defaults obj as the API server would, then
// decodes it into into.
func validateInto(obj *unstructured.Unstructured, into any) error {
	v, err := validation.Embedded()
	if err != nil {
		return fmt.Errorf("cannot be validated: %w", err)
	}
	if errs := v.Validate(context.Background(), obj); len(errs) > 0 {
		return fmt.Errorf("is invalid (%d error%s; the API server would refuse it too):\n  %s",
			len(errs), plural(len(errs), "", "s"), strings.ReplaceAll(validation.Format(errs), "\n", "\n  "))
	}
	doc, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	// The object now has only the schema's fields: a strict decode fails
	// only if the Go types and the CRDs disagree.
	if err := yaml.UnmarshalStrict(doc, into); err != nil {
		return fmt.Errorf("does not decode (the Go types and the CRDs disagree: run make generate): %w", err)
	}
	return nil
}
