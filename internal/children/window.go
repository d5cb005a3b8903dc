package children

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
)

// Windows is the repetition's window on the node of a pod that ran it:
// when the pod's containers ran (podlogs.RunWindow), to the end of the last
// second (the API keeps whole seconds: a run of less than one starts and
// ends in the same); none when its start or end is not known.
func Windows(rep int, pod *corev1.Pod) []results.Window {
	start, end := podlogs.RunWindow(pod)
	if start.IsZero() || end.Before(start) {
		return nil
	}
	return []results.Window{{Repetition: rep, Start: start, End: end.Add(time.Second)}}
}
