package storagebenchmark

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/monitor"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
	"github.com/benchwright/benchwright/internal/sampler"
)

// podOutput is what one finished pod printed, and the samples in it.
type podOutput struct {
	pod     *corev1.Pod
	node    results.NodeInfo
	raw     []byte
	samples []results.Sample
}

// readOutput reads the tool containers' logs of a finished pod, in the order
// they ran, and parses them. The raw log is returned even when parsing fails,
// so that it can be stored. Each log, and all of them together, must be
// within podlogs.MaxLogBytes.
func (r *Reconciler) readOutput(ctx context.Context, b *benchv1.StorageBenchmark, pod *corev1.Pod) (podOutput, error) {
	out := podOutput{pod: pod}
	var raw []byte
	for _, c := range toolContainers(pod) {
		log, err := podlogs.ReadOutput(ctx, r.Logs, pod, c.Name)
		if err != nil {
			out.raw = raw
			return out, fmt.Errorf("reading the log of container %s of pod %s: %w", c.Name, pod.Name, err)
		}
		if len(raw)+len(log) > podlogs.MaxLogBytes {
			out.raw = raw
			return out, outcome.Fail(benchv1.ReasonOutputTooLarge, fmt.Sprintf("the logs of the pod's containers are together over the %d MiB the manager reads of one pod (MaxLogBytes)\n%s",
				podlogs.MaxLogBytes>>20, podlogs.Tail(log)))
		}
		if b.Spec.DD != nil {
			raw = fmt.Appendf(raw, "==> container %s: %s <==\n", c.Name, shownArgv(append(slices.Clone(c.Command), c.Args...)))
		}
		raw = append(raw, log...)
		samples, err := parseStep(b, c.Name, log)
		if err != nil {
			out.raw = raw
			return out, err
		}
		out.samples = append(out.samples, samples...)
	}
	out.raw = raw
	if b.Spec.Fio != nil {
		if err := checkJobsReported(b, out.samples, raw); err != nil {
			return out, err
		}
	}
	return out, nil
}

// shownArgv is an argv on one line: an argument of several lines (the dd
// group script) is quoted, so the header stays one line.
func shownArgv(argv []string) string {
	shown := make([]string, len(argv))
	for i, a := range argv {
		shown[i] = a
		if strings.Contains(a, "\n") {
			shown[i] = strconv.Quote(a)
		}
	}
	return strings.Join(shown, " ")
}

// toolContainers are the containers whose output is the result: every step
// but the page-cache drop.
func toolContainers(pod *corev1.Pod) []corev1.Container {
	var out []corev1.Container
	for _, c := range append(slices.Clone(pod.Spec.InitContainers), pod.Spec.Containers...) {
		if c.Name != dropCachesContainer && c.Name != children.NodeFactsContainer && c.Name != children.SamplerContainer {
			out = append(out, c)
		}
	}
	return out
}

// parseStep parses one container's log: fio's JSON, or one dd test.
func parseStep(b *benchv1.StorageBenchmark, container string, log []byte) ([]results.Sample, error) {
	if b.Spec.Fio != nil {
		jobs, err := fio.Expand(b.Spec.Fio)
		if err != nil {
			return nil, outcome.Fail(benchv1.ReasonInvalidSpec, err.Error())
		}
		names := make([]string, len(jobs))
		for i, j := range jobs {
			names[i] = j.Name
		}
		// Only the spec's jobs: what else fio's JSON lists is not decoded.
		samples, err := fio.ParseJSONJobs(log, names)
		var jobErr *fio.JobError
		switch {
		case errors.Is(err, results.ErrOutputTooLarge):
			return nil, outcome.Fail(benchv1.ReasonOutputTooLarge, fmt.Sprintf("fio's report: %v\n%s", err, podlogs.Tail(log)))
		case errors.As(err, &jobErr):
			return nil, outcome.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("fio reported an error: %v\n%s", err, podlogs.Tail(log)))
		case err != nil:
			return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("fio's output is not a complete fio JSON report (%v)\n%s", err, podlogs.Tail(log)))
		}
		return samples, nil
	}
	if container == ddPrepareContainer {
		return nil, nil
	}
	i := slices.IndexFunc(b.Spec.DD.Tests, func(t benchv1.DDTest) bool { return t.Name == container })
	if i < 0 {
		return nil, nil
	}
	t := b.Spec.DD.Tests[i]
	samples, err := fio.DDTestSamples(t, log)
	var ddErr *fio.DDError
	switch {
	case errors.As(err, &ddErr):
		return nil, outcome.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("dd test %s: %v\n%s", t.Name, err, podlogs.Tail(log)))
	case err != nil:
		return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("dd test %s printed no summary line (%v)\n%s", t.Name, err, podlogs.Tail(log)))
	}
	return samples, nil
}

// checkJobsReported fails when fio's report lacks a job of the spec: a partial
// report is never taken for a result.
func checkJobsReported(b *benchv1.StorageBenchmark, samples []results.Sample, raw []byte) error {
	jobs, err := fio.Expand(b.Spec.Fio)
	if err != nil {
		return outcome.Fail(benchv1.ReasonUnparsableOutput, err.Error())
	}
	seen := map[string]bool{}
	for _, s := range samples {
		seen[s.Test] = true
	}
	var missing []string
	for _, j := range jobs {
		if !seen[j.Name] {
			missing = append(missing, j.Name)
		}
	}
	if len(missing) > 0 {
		return outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("fio's report has no figures for job(s) %s\n%s", strings.Join(missing, ", "), podlogs.Tail(raw)))
	}
	return nil
}

// labelSamples completes parsed samples with what the cluster knows.
func labelSamples(b *benchv1.StorageBenchmark, out *podOutput, rep, attempt int) {
	runstore.Origin{
		Object: b, Kind: kind, Placement: b.Spec.Placement, WarmupRepetitions: b.Spec.WarmupRepetitions,
		Repetition: rep, Attempt: attempt, Node: out.node, Finished: podlogs.FinishTime(out.pod),
	}.Label(out.samples)
	for _, s := range out.samples {
		s.Labels[results.LabelNode] = out.pod.Spec.NodeName
		if b.Spec.Nodes > 1 {
			s.Labels[results.LabelNodes] = strconv.Itoa(int(b.Spec.Nodes))
		}
	}
}

// phases are the tests on the sampler's clock: fio's jobs placed from its
// report (fio.JobWindows), or each dd test's container.
func phases(b *benchv1.StorageBenchmark, pod *corev1.Pod, raw []byte) []sampler.Phase {
	if b.Spec.Fio != nil {
		jobs, err := fio.Expand(b.Spec.Fio)
		if err != nil {
			return nil
		}
		names := make([]string, len(jobs))
		for i, j := range jobs {
			names[i] = j.Name
		}
		windows, ok := fio.JobWindows(raw, names)
		if !ok {
			return nil
		}
		out := make([]sampler.Phase, len(windows))
		for i, w := range windows {
			out[i] = sampler.NewPhase(w.Job, w.Start, w.End)
		}
		return out
	}
	tests := map[string]string{}
	for _, t := range b.Spec.DD.Tests {
		tests[t.Name] = t.Name
	}
	return monitor.ContainerPhases(pod, tests)
}
