package benchrun

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
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
