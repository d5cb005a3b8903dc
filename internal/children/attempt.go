package children

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Attempt is where the latest attempt of a repetition stands, as its driver
// observed it and reports it to the state machine.
type Attempt struct {
	// Rep is the repetition, from 0; Number is its attempt: 0, then one more
	// for each retry, and -1 while none was created.
	Rep, Number int
	// Partial means some of the attempt's children are still to be created.
	Partial bool
	Phase   Phase
	// Created is when the attempt's children were created; Started when it
	// began to run (zero until then).
	Created, Started time.Time
	// Why explains a starting, lost, failed or timed-out attempt in words.
	Why string
	// GoneJob names the Job of a lost attempt whose pod is gone: its pods'
	// events may say what took it.
	GoneJob string
	// Unmade marks a starting attempt some of whose pods do not exist yet:
	// admission may be refusing them (see benchrun's refusal).
	Unmade bool
	// Waiting is Running's reason while the attempt starts (default
	// Starting).
	Waiting string
	// Pending says what did not happen once the start timeout has passed
	// (default "did not start").
	Pending string
	// Note follows "repetition n/m is running" (default: the retry note).
	Note string
	// Retries counts the retries over all repetitions, from the children.
	Retries int32
}

// Phase is where one attempt of a repetition stands, over all its node slots.
type Phase int

const (
	// PhaseStarting means some pod is not running yet (unscheduled, volumes
	// unbound, image pulling).
	PhaseStarting Phase = iota
	// PhaseRunning means every pod runs or has finished.
	PhaseRunning
	// PhaseSucceeded means every Job completed; their pods' logs can be read.
	PhaseSucceeded
	// PhaseLost means a pod was evicted, preempted or lost with its node; the
	// attempt can be retried.
	PhaseLost
	// PhaseToolFailed means the tool exited non-zero; its failure is the result.
	PhaseToolFailed
	// PhaseDeadline means the Job's own deadline ended it (the manager was away).
	PhaseDeadline
)

// AttemptLabel holds the attempt of a repetition on its Jobs or MPIJob: 0,
// then one more for each retry.
const AttemptLabel = "benchwright.io/attempt"

// Retries counts the attempts beyond the first over all repetitions of a
// benchmark's Jobs or MPIJobs.
func Retries[T metav1.Object](jobs []T) int32 {
	latest := map[int]int{}
	for _, j := range jobs {
		rep := LabelInt(j, benchv1.RepetitionLabel)
		latest[rep] = max(latest[rep], LabelInt(j, AttemptLabel))
	}
	var n int32
	for _, a := range latest {
		n += int32(max(a, 0))
	}
	return n
}

// AttemptNote is " (retry n)" for a retry, nothing for a first attempt.
func AttemptNote(attempt int) string {
	if attempt == 0 {
		return ""
	}
	return fmt.Sprintf(" (retry %d)", attempt)
}
