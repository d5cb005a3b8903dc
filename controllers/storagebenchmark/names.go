package storagebenchmark

import (
	"fmt"
	"strconv"

	"github.com/benchwright/benchwright/internal/children"
)

// Labels on the children, besides those of the API package.
const (
	attemptLabel = children.AttemptLabel
)

// jobName names the Job of one node slot of one attempt of a repetition:
// "<name>-r<rep>", then "-n<slot>" with several nodes, "-a<attempt>" on retries.
func jobName(bench string, rep, slot, attempt int, nodes int32) string {
	suffix := "-r" + strconv.Itoa(rep)
	if nodes > 1 {
		suffix += "-n" + strconv.Itoa(slot)
	}
	if attempt > 0 {
		suffix += "-a" + strconv.Itoa(attempt)
	}
	return children.Name(bench, suffix)
}

// pvcName names the claim of volume vol of node slot: "<name>-data<vol>", with
// "-n<slot>" before it when several nodes each get their own disks.
func pvcName(bench string, slot, vol int, nodes int32) string {
	suffix := fmt.Sprintf("-data%d", vol)
	if nodes > 1 {
		suffix = fmt.Sprintf("-n%d%s", slot, suffix)
	}
	return children.Name(bench, suffix)
}
