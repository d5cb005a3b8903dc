// Package monitor reads the sampler sidecar's series of a finished
// benchmark pod, stores it with the run and turns it into summary samples
// per test. Monitoring never fails a benchmark: what is missing is a
// warning, and the series says it is incomplete.
package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
	"github.com/benchwright/benchwright/internal/sampler"
)

// Record is sampler.Record, as stored for a pod.
type Record = sampler.Record

// Collect reads pod's sampler series, stores it with the run and returns
// its summary samples over phases. warning says what makes the series
// incomplete or absent; err is only the store's (try again). A pod without
// the sampler has nothing to collect.
func Collect(ctx context.Context, logs podlogs.LogReader, run runstore.Run, rep int, pod *corev1.Pod, phases []sampler.Phase) (samples []results.Sample, warning string, err error) {
	if !children.HasSampler(pod) {
		return nil, "", nil
	}
	rec := Record{Pod: pod.Name, Node: pod.Spec.NodeName, Phases: phases, Restarts: restarts(pod)}
	log, rerr := podlogs.ReadLog(ctx, logs, pod, children.SamplerContainer)
	if rerr != nil {
		return nil, shorten(fmt.Sprintf("pod %s: the sampler's log could not be read: %v", pod.Name, rerr)), nil
	}
	if len(log) > maxSamplerLog {
		// Not the sampler's: it stays within its budget. Decoding it would
		// hold several times its size while the tool's output is held too.
		return nil, shorten(fmt.Sprintf("pod %s: the sampler's log is %d MiB, over the %d MiB a sampler writes: not read", pod.Name, len(log)>>20, maxSamplerLog>>20)), nil
	}
	series, ok := sampler.Decode(log)
	if !ok {
		return nil, shorten(fmt.Sprintf("pod %s: the sampler's log has no series %v: %q", pod.Name, series.Problems, firstBytes(log, 120))), nil
	}
	rec.Series = series
	data, merr := json.Marshal(rec)
	if merr != nil {
		return nil, "", merr
	}
	if err := run.PutMonitor(ctx, rep, pod.Name, data); err != nil {
		return nil, "", err
	}
	if !rec.Complete() {
		warning = fmt.Sprintf("pod %s: the node's series is incomplete", pod.Name)
		if rec.Restarts > 0 {
			warning += fmt.Sprintf(": the sampler restarted %d time(s), the series is its last run's", rec.Restarts)
		}
		for _, p := range series.Problems {
			warning += "; " + p
		}
	}
	samples = sampler.Summarize(series, phases)
	for i := range samples {
		// The series is the pod's node's.
		samples[i].Labels[results.LabelNode] = pod.Spec.NodeName
	}
	return samples, shorten(warning), nil
}

// maxSamplerLog is the most of a sampler's log that is decoded: its budget
// (sampler.DefaultBudget) and a margin. The series it holds decoded is a few
// times that, for one pod at a time in a collector's turn.
const maxSamplerLog = sampler.DefaultBudget + 1<<20

// maxWarning bounds a warning, which becomes an event's message.
const maxWarning = 512

func shorten(s string) string {
	if len(s) <= maxWarning {
		return s
	}
	cut := maxWarning - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// restarts is the sampler container's restart count.
func restarts(pod *corev1.Pod) int32 {
	for _, s := range pod.Status.InitContainerStatuses {
		if s.Name == children.SamplerContainer {
			return s.RestartCount
		}
	}
	return 0
}

// ContainerPhases are phases from the containers' own start and finish
// times, one per named container (container name -> test): second
// resolution, as the kubelet reports them.
func ContainerPhases(pod *corev1.Pod, tests map[string]string) []sampler.Phase {
	var out []sampler.Phase
	for _, s := range append(append([]corev1.ContainerStatus(nil), pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		test, ok := tests[s.Name]
		t := s.State.Terminated
		if !ok || t == nil || t.StartedAt.IsZero() || t.FinishedAt.Before(&t.StartedAt) {
			continue
		}
		// Times are whole seconds: the container ended within the second
		// after the one its finish time names.
		out = append(out, sampler.NewPhase(test, t.StartedAt.Time, t.FinishedAt.Add(time.Second)))
	}
	return out
}

func firstBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
