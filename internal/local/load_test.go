package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadYAML(t *testing.T, doc string) ([]Spec, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	specs, _, err := LoadFile(path)
	return specs, err
}

const (
	storageDoc = `apiVersion: benchwright.io/v1alpha1
kind: StorageBenchmark
metadata: {name: s}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  volumes: {emptyDir: {}}
  fio: {jobs: [{name: randread, rw: randread}]}
`
	mpiDoc = `apiVersion: benchwright.io/v1alpha1
kind: MPIBenchmark
metadata: {name: m}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  suite: osu
  tests: [osu_latency]
  layout: {nodes: 2, ranksPerNode: 1}
  mpi: {}
`
)

// The cases of issue 18: a local run took each of them.
func TestLoadFileValidatesAsTheAPIServer(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"negative repetitions", storageDoc + "  repetitions: -2\n", []string{
			`document 1 (StorageBenchmark "s") is invalid`,
			"spec.repetitions: Invalid value: -2: spec.repetitions in body should be greater than or equal to 1",
		}},
		{"messageSizes.max 0", mpiDoc + "  messageSizes: {max: 0}\n", []string{
			`document 1 (MPIBenchmark "m") is invalid`,
			"spec.messageSizes.max: Invalid value: 0: spec.messageSizes.max in body should be greater than or equal to 1",
		}},
		{"osu_latency with 3 ranks", strings.Replace(mpiDoc, "{nodes: 2, ranksPerNode: 1}", "{nodes: 1, ranksPerNode: 3}", 1), []string{
			"point-to-point OSU tests (osu_latency, osu_bw, osu_bibw) need exactly 2 ranks in total",
		}},
		{"blocksize in the wrong case", strings.Replace(storageDoc, "rw: randread}", "rw: randread, blocksize: 4k}", 1), []string{
			`spec.fio.jobs[0].blocksize: Forbidden: unknown field "spec.fio.jobs[0].blocksize"`,
		}},
		{"a bad name in the second document", storageDoc + "---\n" + strings.Replace(mpiDoc, "name: m", "name: M_1", 1), []string{
			`document 2 (MPIBenchmark "M_1") is invalid`, `metadata.name: Invalid value: "M_1"`,
		}},
		{"every error is named", storageDoc + "  repetitions: -2\n  warmupRepetitions: -1\n", []string{
			"(3 errors;", "spec.repetitions: Invalid value: -2", "spec.warmupRepetitions: Invalid value: -1",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadYAML(t, tc.doc)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not say %q:\n%v", want, err)
				}
			}
		})
	}
}

func TestLoadFileAppliesTheCRDDefaults(t *testing.T) {
	specs, err := loadYAML(t, storageDoc+"---\n"+mpiDoc)
	if err != nil {
		t.Fatal(err)
	}
	s := specs[0].Storage.Spec
	if s.Repetitions != 1 || s.Volumes.Count != 1 || s.Nodes != 1 || s.MaxRetries != 2 || s.Fio.Jobs[0].BlockSize != "4k" {
		t.Errorf("storage defaults not applied: repetitions %d, count %d, nodes %d, maxRetries %v, blockSize %q",
			s.Repetitions, s.Volumes.Count, s.Nodes, s.MaxRetries, s.Fio.Jobs[0].BlockSize)
	}
	m := specs[1].MPI.Spec
	if m.Repetitions != 1 || m.Layout.RanksPerNode != 1 || m.MPI.Implementation != "OpenMPI" {
		t.Errorf("MPI defaults not applied: repetitions %d, ranksPerNode %d, implementation %q",
			m.Repetitions, m.Layout.RanksPerNode, m.MPI.Implementation)
	}
}

func TestLoadFileQuickstarts(t *testing.T) {
	for _, name := range []string{"fio.yaml", "osu-latency.yaml", "fabtests-pair.yaml"} {
		if _, _, err := LoadFile(filepath.Join("..", "..", "examples", "quickstart", name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
