package mpibenchmark

import (
	"strconv"

	"github.com/benchwright/benchwright/internal/benchrun"
)

// Labels on the children, besides those of the API package.
const (
	attemptLabel = "benchwright.io/attempt"
	roleLabel    = "benchwright.io/role"
)

// Roles of the pods of an MPIJob.
const (
	roleLauncher = "launcher"
	roleWorker   = "worker"
)

// mpiJobName names the MPIJob of one attempt of a repetition: "<name>-r<rep>",
// then "-a<attempt>" on retries. The MPI Operator names the launcher Job
// "<mpijob>-launcher" and the workers "<mpijob>-worker-<i>".
func mpiJobName(bench string, rep, attempt int) string {
	suffix := "-r" + strconv.Itoa(rep)
	if attempt > 0 {
		suffix += "-a" + strconv.Itoa(attempt)
	}
	return benchrun.ChildName(bench, suffix)
}

// configMapName names the ConfigMap that holds the launcher's steps.
func configMapName(bench string) string { return benchrun.ChildName(bench, "-mpi") }
