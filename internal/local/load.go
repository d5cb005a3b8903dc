// Package local runs a benchmark spec on this machine: the same spec, the same
// parsers and the same result files as in a cluster, with local directories
// instead of volumes and local ranks instead of MPI workers.
package local

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
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

// LoadFile reads the benchmarks of a YAML file. Other kinds (pools, tuning
// profiles) are skipped and named in skipped: they need a cluster.
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
		doc, err := yaml.Marshal(obj.Object)
		if err != nil {
			return nil, nil, err
		}
		switch obj.GetKind() {
		case "StorageBenchmark":
			b := &benchv1.StorageBenchmark{}
			if err := strictUnmarshal(doc, b); err != nil {
				return nil, nil, fmt.Errorf("%s: document %d (StorageBenchmark %q): %w", path, i+1, obj.GetName(), err)
			}
			defaultStorage(b)
			specs = append(specs, Spec{Storage: b})
		case "MPIBenchmark":
			b := &benchv1.MPIBenchmark{}
			if err := strictUnmarshal(doc, b); err != nil {
				return nil, nil, fmt.Errorf("%s: document %d (MPIBenchmark %q): %w", path, i+1, obj.GetName(), err)
			}
			specs = append(specs, Spec{MPI: b})
		case "NetworkBenchmark":
			b := &benchv1.NetworkBenchmark{}
			if err := strictUnmarshal(doc, b); err != nil {
				return nil, nil, fmt.Errorf("%s: document %d (NetworkBenchmark %q): %w", path, i+1, obj.GetName(), err)
			}
			specs = append(specs, Spec{Network: b})
		default:
			skipped = append(skipped, fmt.Sprintf("%s %s", obj.GetKind(), obj.GetName()))
		}
	}
	if len(specs) == 0 {
		return nil, skipped, fmt.Errorf("%s: no StorageBenchmark, MPIBenchmark or NetworkBenchmark in the file", path)
	}
	return specs, skipped, nil
}

func strictUnmarshal(doc []byte, into any) error {
	if err := yaml.UnmarshalStrict(doc, into); err != nil {
		return fmt.Errorf("%w (check the field names against `kubectl explain`)", err)
	}
	return nil
}

// defaultStorage applies the CRD's defaults that the local run depends on.
func defaultStorage(b *benchv1.StorageBenchmark) {
	b.Spec.Repetitions = b.Spec.RepetitionsOrDefault()
	b.Spec.Volumes.Count = b.Spec.Volumes.CountOrDefault()
	if b.Spec.Nodes < 1 {
		b.Spec.Nodes = 1
	}
}
