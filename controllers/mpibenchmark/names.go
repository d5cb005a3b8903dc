package mpibenchmark

import (
	"strconv"

	"github.com/benchwright/benchwright/internal/children"
)

// Labels on the children, besides those of the API package.
const (
	attemptLabel = children.AttemptLabel
	roleLabel    = "benchwright.io/role"
)

// Roles of the pods of an MPIJob.
const (
	roleLauncher = "launcher"
	roleWorker   = "worker"
)

// maxMPIJobName leaves room for the MPI Operator's worker hostnames,
// "<mpijob>-worker-<i>" with i up to 1023, within a DNS label's 63 characters.
const maxMPIJobName = 63 - len("-worker-1023")

// mpiJobName names the MPIJob of one attempt of a repetition: "<name>-r<rep>",
// then "-a<attempt>" on retries. The MPI Operator names the launcher Job
// "<mpijob>-launcher" and the workers "<mpijob>-worker-<i>".
func mpiJobName(bench string, rep, attempt int) string {
	suffix := "-r" + strconv.Itoa(rep)
	if attempt > 0 {
		suffix += "-a" + strconv.Itoa(attempt)
	}
	return children.ShortName(bench, suffix, maxMPIJobName)
}
