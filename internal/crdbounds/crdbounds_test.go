package crdbounds

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// The bounds the controllers read (their package variables panic without
// them), with the values of the markers in api/v1alpha1.
func TestBoundsTheControllersRead(t *testing.T) {
	for _, tt := range []struct {
		kind, path string
		length     bool // maxLength, else maxItems
		want       int
	}{
		{kind: "MPIBenchmark", path: "status.results", want: 48},
		{kind: "MPIBenchmark", path: "status.results[].points", want: 40},
		{kind: "StorageBenchmark", path: "status.results", want: 96},
		{kind: "NetworkBenchmark", path: "status.pairs", want: 512},
		{kind: "TuningProfile", path: "status.nodes", want: 1000},
		{kind: "TuningProfile", path: "status.nodes[].mismatches", want: 128},
		{kind: "TuningProfile", path: "status.requested", want: 128},
		{kind: "TuningProfile", path: "status.nodes[].message", length: true, want: 1024},
	} {
		lookup := MaxItems
		if tt.length {
			lookup = MaxLength
		}
		got, err := lookup(tt.kind, tt.path)
		if err != nil || got != tt.want {
			t.Errorf("%s %s: %d, %v; want %d", tt.kind, tt.path, got, err, tt.want)
		}
	}
}

// Maximum reads a number's bound, and names one that is not there.
func TestMaximum(t *testing.T) {
	if got, err := Maximum("StorageBenchmark", "spec.volumes.count"); err != nil || got != 64 {
		t.Errorf("spec.volumes.count: %d, %v; want 64", got, err)
	}
	if _, err := Maximum("StorageBenchmark", "spec.image"); err == nil || !strings.Contains(err.Error(), "no maximum on spec.image") {
		t.Errorf("spec.image: %v", err)
	}
}

// A bound that is not there is an error naming what is missing, and the
// Must forms panic with it.
func TestMissingBounds(t *testing.T) {
	for _, tt := range []struct {
		kind, path string
		length     bool
		want       string
	}{
		{kind: "Widget", path: "status.results", want: "no CRD of kind Widget"},
		{kind: "MPIBenchmark", path: "status.result", want: "MPIBenchmark's CRD has no field status.result"},
		{kind: "MPIBenchmark", path: "status.results.points", want: "no field status.results.points"},
		{kind: "MPIBenchmark", path: "status.layout[]", want: "status.layout is not an array"},
		{kind: "MPIBenchmark", path: "status.layout", want: "no maxItems on status.layout"},
		{kind: "TuningProfile", path: "status.nodes", length: true, want: "no maxLength on status.nodes"},
	} {
		lookup, must := MaxItems, MustMaxItems
		if tt.length {
			lookup, must = MaxLength, MustMaxLength
		}
		if n, err := lookup(tt.kind, tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: %d, %v; want an error with %q", tt.kind, tt.path, n, err, tt.want)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tt.want) {
					t.Errorf("%s %s: Must panicked with %v, want %q", tt.kind, tt.path, r, tt.want)
				}
			}()
			must(tt.kind, tt.path)
		}()
	}
}

// crds/ is config/crd/bases as make manifests leaves it: the same files,
// byte for byte.
func TestCopyIsConfigCRDBases(t *testing.T) {
	want, err := filepath.Glob(filepath.Join("..", "..", "config", "crd", "bases", "*.yaml"))
	if err != nil || len(want) == 0 {
		t.Fatalf("config/crd/bases: %v, %d files", err, len(want))
	}
	got, err := filepath.Glob(filepath.Join("crds", "*.yaml"))
	if err != nil || len(got) != len(want) {
		t.Fatalf("crds/ has %d files, config/crd/bases %d (%v): run make manifests", len(got), len(want), err)
	}
	for _, path := range want {
		a, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := crds.ReadFile("crds/" + filepath.Base(path))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("crds/%s differs from %s (%v): run make manifests", filepath.Base(path), path, err)
		}
	}
}

// The defaults that api/v1alpha1/defaults.go applies in code are the CRDs'.
func TestDefaultsInCodeAreTheCRDs(t *testing.T) {
	var zero struct {
		mpi     benchv1.MPIBenchmarkSpec
		net     benchv1.NetworkBenchmarkSpec
		storage benchv1.StorageBenchmarkSpec
	}
	for _, tt := range []struct {
		kind, path string
		code       any
	}{
		{"MPIBenchmark", "spec.repetitions", zero.mpi.RepetitionsOrDefault()},
		{"MPIBenchmark", "spec.layout.ranksPerNode", zero.mpi.Layout.RanksPerNodeOrDefault()},
		{"MPIBenchmark", "spec.mpi.implementation", zero.mpi.MPI.ImplementationOrDefault()},
		{"MPIBenchmark", "spec.ior.api", benchv1.IORSettings{}.APIOrDefault()},
		{"MPIBenchmark", "spec.ior.transferSize", benchv1.IORSettings{}.TransferSizeOrDefault()},
		{"MPIBenchmark", "spec.ior.blockSize", benchv1.IORSettings{}.BlockSizeOrDefault()},
		{"MPIBenchmark", "spec.ior.segments", benchv1.IORSettings{}.SegmentsOrDefault()},
		{"NetworkBenchmark", "spec.repetitions", zero.net.RepetitionsOrDefault()},
		{"NetworkBenchmark", "spec.nodes", zero.net.NodesOrDefault()},
		{"NetworkBenchmark", "spec.fabtests.provider", benchv1.FabtestsSettings{}.ProviderOrDefault()},
		{"NetworkBenchmark", "spec.iperf3.streams", benchv1.IPerf3Settings{}.StreamsOrDefault()},
		{"StorageBenchmark", "spec.repetitions", zero.storage.RepetitionsOrDefault()},
		{"StorageBenchmark", "spec.volumes.count", zero.storage.Volumes.CountOrDefault()},
	} {
		s, err := lookup(tt.kind, tt.path)
		if err != nil {
			t.Errorf("%s %s: %v", tt.kind, tt.path, err)
			continue
		}
		crd, _ := json.Marshal(s.Default)
		code, _ := json.Marshal(tt.code)
		if s.Default == nil || !bytes.Equal(crd, code) {
			t.Errorf("%s %s: the CRD's default is %s, the code's %s", tt.kind, tt.path, crd, code)
		}
	}
}
