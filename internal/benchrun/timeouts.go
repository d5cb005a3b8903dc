package benchrun

import (
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Default waits, when spec.timeouts does not say.
const (
	defaultStartTimeout = 15 * time.Minute
	defaultRunTimeout   = 2 * time.Hour
	// defaultWaitForNodes bounds the waits before the first repetition.
	defaultWaitForNodes = time.Hour
)

// StartTimeout bounds the time from creating a repetition's Job or MPIJob to
// its pods running.
func StartTimeout(t benchv1.Timeouts) time.Duration {
	if t.Start != nil && t.Start.Duration > 0 {
		return t.Start.Duration
	}
	return defaultStartTimeout
}

// RunTimeout bounds one repetition once it runs.
func RunTimeout(t benchv1.Timeouts) time.Duration {
	if t.Run != nil && t.Run.Duration > 0 {
		return t.Run.Duration
	}
	return defaultRunTimeout
}

// waitForNodesTimeout bounds the time from creating a benchmark to its first
// repetition: its pool, its tuning and its turn on the pool.
func waitForNodesTimeout(t benchv1.Timeouts) time.Duration {
	if t.WaitForNodes != nil && t.WaitForNodes.Duration > 0 {
		return t.WaitForNodes.Duration
	}
	return defaultWaitForNodes
}
