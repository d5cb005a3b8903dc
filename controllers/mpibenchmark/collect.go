package mpibenchmark

import (
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
)

// parseLauncherLog splits the launcher's log into its steps and parses each
// with the suite's parser. Every step must have finished with exit code 0 and
// every test of the spec must have figures: a partial run is never a result.
func parseLauncherLog(b *benchv1.MPIBenchmark, l *mpi.Launch, log []byte) ([]results.Sample, error) {
	if msg, ok := mpi.MismatchIn(log); ok {
		return nil, outcome.Fail(benchv1.ReasonMPIMismatch, msg)
	}
	steps, err := mpi.SplitSteps(log)
	if err != nil {
		return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("the launcher's log is not benchwright's step log (%v)\n%s", err, podlogs.Tail(log)))
	}
	parse, _ := mpi.Parser(b.Spec.Suite) // the CRD admits known suites only
	var samples []results.Sample
	for i, s := range steps {
		if i >= len(l.Steps) {
			return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("the launcher's log has more steps than the %d it was given", len(l.Steps)))
		}
		if s.ExitCode == -1 {
			return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("the launcher's log ends inside step %d (%s): it was cut short\n%s", s.Index, s.Argv, podlogs.Tail(s.Output)))
		}
		if s.ExitCode != 0 {
			return nil, outcome.Fail(benchv1.ReasonToolFailed, stepFailure(l, s))
		}
		parsed, err := parse(s.Output)
		switch {
		case errors.Is(err, results.ErrOutputTooLarge):
			return nil, runstore.TooManySamples(fmt.Sprintf("step %d (%s)", s.Index, s.Argv))
		case err != nil:
			return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("step %d (%s): %v\n%s", s.Index, s.Argv, err, podlogs.Tail(s.Output)))
		}
		for _, p := range parsed {
			if slices.Contains(l.Steps[i].Tests, p.Test) {
				samples = append(samples, p)
			}
		}
		if len(samples) > results.MaxRunSamples {
			return nil, runstore.TooManySamples("the launcher's output")
		}
	}
	if len(steps) != len(l.Steps) {
		return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("the launcher's log has %d of its %d steps: it was cut short\n%s", len(steps), len(l.Steps), podlogs.Tail(log)))
	}
	seen := map[string]bool{}
	for _, s := range samples {
		seen[s.Test] = true
	}
	for _, t := range b.Spec.Tests {
		if !seen[t] {
			return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("the output has no figures for test %s\n%s", t, podlogs.Tail(log)))
		}
	}
	return samples, nil
}

// labelSamples completes parsed samples with what the cluster knows.
func labelSamples(b *benchv1.MPIBenchmark, samples []results.Sample, nodes []results.NodeInfo, rep, attempt int, finished time.Time) {
	var first results.NodeInfo // the first worker's node stands for all
	if len(nodes) > 0 {
		first = nodes[0]
	}
	runstore.Origin{
		Object: b, Kind: kind, Placement: b.Spec.Placement, WarmupRepetitions: b.Spec.WarmupRepetitions,
		Repetition: rep, Attempt: attempt, Node: first, Finished: finished,
	}.Label(samples)
	layout := describeLayout(b)
	for _, s := range samples {
		s.Labels[results.LabelMPI] = string(b.Spec.MPI.Implementation)
		s.Labels["layout"] = layout
	}
}

// workerNodes are the nodes the workers ran on, in worker order.
func workerNodes(pods []*corev1.Pod, facts map[string]nodefacts.Facts) []string {
	var out []string
	// The workers' facts name their nodes after the MPI Operator deleted them.
	for name := range facts {
		out = append(out, name)
	}
	for _, p := range pods {
		if p.Labels[roleLabel] == roleWorker && p.Spec.NodeName != "" && !slices.Contains(out, p.Spec.NodeName) {
			out = append(out, p.Spec.NodeName)
		}
	}
	slices.Sort(out)
	return out
}

// summarizeOptions group OSU and IMB figures by message size.
func summarizeOptions(b *benchv1.MPIBenchmark) results.SummarizeOptions {
	opts := results.SummarizeOptions{WarmupRepetitions: int(b.Spec.WarmupRepetitions)}
	if b.Spec.Suite != benchv1.SuiteIOR {
		opts.GroupBy = []string{results.LabelMsgSize}
	}
	return opts
}
