package benchrun

import (
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Default waits, when spec.timeouts does not say.
const (
	defaultStartTimeout = 15 * time.Minute
	defaultRunTimeout   = 2 * time.Hour
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
