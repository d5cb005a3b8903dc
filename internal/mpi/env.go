package mpi

import (
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// intelFabrics are the I_MPI_FABRICS values Intel MPI 2019 and later
// accept: shared memory within a node and libfabric (OFI) between nodes,
// whose provider FI_PROVIDER picks (tcp, verbs, psm3...).
var intelFabrics = []string{"shm", "ofi", "shm:ofi"}

// EnvProblems says what in an MPIBenchmark's mpi.env the implementation
// and version of its image would reject or ignore; empty when nothing. The
// version is the image's ("2021.14" for the shipped Intel image); an empty
// one skips the checks that depend on it.
func EnvProblems(impl benchv1.MPIImplementation, version string, env []benchv1.EnvVar) []string {
	var out []string
	for _, e := range env {
		switch {
		case strings.HasPrefix(e.Name, "I_MPI_") && impl != benchv1.IntelMPI:
			out = append(out, e.Name+" is Intel MPI's: "+string(impl)+" ignores it")
		case strings.HasPrefix(e.Name, "OMPI_") && impl != benchv1.OpenMPI:
			out = append(out, e.Name+" is Open MPI's: "+string(impl)+" ignores it")
		case strings.HasPrefix(e.Name, "MPIR_CVAR_") && impl != benchv1.MPICH:
			out = append(out, e.Name+" is MPICH's: "+string(impl)+" ignores it")
		case e.Name == "I_MPI_FABRICS" && intelFrom2019(version) && !validIntelFabrics(e.Value):
			out = append(out, "I_MPI_FABRICS="+strconv.Quote(e.Value)+": Intel MPI "+version+
				" accepts only shm, ofi or shm:ofi (shm:tcp, dapl, tmi and ofa were Intel MPI 2018's); for TCP between nodes set I_MPI_FABRICS=shm:ofi and FI_PROVIDER=tcp")
		}
	}
	return out
}

// validIntelFabrics tells whether v is an I_MPI_FABRICS value of Intel MPI
// 2019 and later.
func validIntelFabrics(v string) bool {
	for _, f := range intelFabrics {
		if v == f {
			return true
		}
	}
	return false
}

// intelFrom2019 tells whether an Intel MPI version is 2019 or later: the
// release that replaced its fabrics with libfabric.
func intelFrom2019(version string) bool {
	year, _, _ := strings.Cut(version, ".")
	y, err := strconv.Atoi(year)
	return err == nil && y >= 2019
}
