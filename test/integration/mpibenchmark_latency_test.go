package integration

import (
	"testing"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/mpibenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/test/wrappers"
)

// latencyOSU is a 2x1 OpenMPI osu_latency benchmark placed by nodeSelector;
// its MPIJobs are never run.
const latencyOSU = `
nodeSelector: {kubernetes.io/os: linux}
suite: osu
tests: [osu_latency]
layout: {nodes: 2, ranksPerNode: 1}
mpi: {implementation: OpenMPI}
repetitions: 1
`

// BenchmarkMPIBenchmarkCreationToMPIJob measures how long the controller takes
// from an MPIBenchmark's creation to its first MPIJob, over 100 benchmarks
// created one after the other. Nothing runs the MPIJobs: there is no fake MPI
// Operator, so each stays as created.
func BenchmarkMPIBenchmarkCreationToMPIJob(b *testing.B) {
	var spec benchv1.MPIBenchmarkSpec
	if err := yaml.UnmarshalStrict([]byte(latencyOSU), &spec); err != nil {
		b.Fatal(err)
	}
	ns := latencyNamespace(b, "mb-lat-")
	startController(b, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		return (&mpibenchmark.Reconciler{
			Env:    benchrun.NewEnv(mgr, "mpibenchmark-controller", noLogs{}, store),
			Images: map[benchv1.MPIImplementation]string{benchv1.OpenMPI: "registry.example/mpi-openmpi:test"},
		}).SetupWithManager(mgr)
	}, noStandIn)
	benchCreationToChild(b, creationLatency{
		ns: ns, child: "MPIJob",
		children: func() client.ObjectList { return &mpiv2.MPIJobList{} },
		benchmark: func(name string) client.Object {
			return wrappers.MakeMPIBenchmark(name, ns).Spec(spec).Obj()
		},
	})
}
