package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

const kindStorage = "StorageBenchmark"

// Result is what a local run produced, and where its files are.
type Result struct {
	Kind      string
	Name      string
	RunUID    string
	Dir       string // <ResultsDir>/<name>
	Samples   []results.Sample
	Summaries []results.Summary
	Node      results.NodeInfo

	namespace string
	labels    map[string]string // the benchmark's
	started   time.Time
	now       func() time.Time
	// sampleLabels are set on every sample, e.g. the MPI.
	sampleLabels map[string]string
	// monitoring is the spec's; phases are the tests of each repetition on
	// the sampler's clock, as the runners record them.
	monitoring benchv1.Monitoring
	phases     map[int][]sampler.Phase
}

func newResult(kind, name, namespace string, labels map[string]string, opts Options) (*Result, error) {
	uid := make([]byte, 8)
	if _, err := rand.Read(uid); err != nil {
		return nil, err
	}
	r := &Result{
		Kind: kind, Name: name, RunUID: "local-" + hex.EncodeToString(uid),
		Dir:       filepath.Join(opts.ResultsDir, name),
		Node:      readNodeInfo(),
		namespace: namespace, labels: labels, started: opts.Now(), now: opts.Now,
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "raw"), 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", r.Dir, err)
	}
	return r, nil
}

// label completes a parsed sample with what the run knows.
func (r *Result) label(s *results.Sample, rep int, warmup bool) {
	s.RunUID, s.Kind, s.Namespace, s.Benchmark, s.Repetition = r.RunUID, r.Kind, r.namespace, r.Name, rep
	if s.Timestamp.IsZero() {
		s.Timestamp = r.now().UTC()
	}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels[results.LabelNode] = r.Node.Hostname
	s.Labels[results.LabelMachineType] = r.Node.MachineType
	if c := r.labels[benchv1.CampaignLabel]; c != "" {
		s.Labels[results.LabelCampaign] = c
	}
	maps.Copy(s.Labels, results.AxisLabels(r.labels))
	if warmup {
		s.Labels[results.LabelWarmup] = "true"
	}
	maps.Copy(s.Labels, r.Node.NodeLabels())
	maps.Copy(s.Labels, r.sampleLabels)
}

// ErrInterrupted is a run stopped by a signal; its scratch directories are
// removed all the same.
var ErrInterrupted = errors.New("interrupted")

// repeat runs reps repetitions one after the other (each after before, when
// set), the first warmups of them not counted, and keeps their labelled
// samples; then it summarizes them, grouped by groupBy besides test and
// metric, and writes the result files.
func (r *Result) repeat(ctx context.Context, opts Options, reps, warmups int, groupBy []string,
	before func(), runOne func(ctx context.Context, rep int) ([]results.Sample, error)) error {
	for rep := range reps {
		if before != nil {
			before()
		}
		warm := ""
		if rep < warmups {
			warm = " (warm-up, not counted)"
		}
		opts.progress("repetition %d/%d%s", rep+1, reps, warm)
		r.Node.Facts = readFacts() // the frequency as this repetition starts
		mon, err := r.startMonitor(rep)
		if err != nil {
			return err
		}
		samples, err := runOne(ctx, rep)
		monitored, merr := r.stopMonitor(mon, rep)
		if merr != nil {
			opts.progress("warning: the machine's series of repetition %d: %v", rep+1, merr)
		}
		samples = append(samples, monitored...)
		if err != nil && ctx.Err() != nil {
			// Ctrl-C, SIGTERM, or a reader of the output gone (SIGPIPE): the
			// tool was stopped, which is not its failure.
			return fmt.Errorf("%w in repetition %d/%d: the tool was stopped, its scratch files removed; no samples or summary were written (the raw outputs so far are in %s)",
				ErrInterrupted, rep+1, reps, filepath.Join(r.Dir, "raw"))
		}
		if err != nil {
			return fmt.Errorf("repetition %d: %w", rep+1, err)
		}
		for i := range samples {
			r.label(&samples[i], rep, rep < warmups)
		}
		r.Samples = append(r.Samples, samples...)
	}
	groupBy = append(groupBy, sampler.GroupBy...)
	r.Summaries = results.Summarize(r.Samples, results.SummarizeOptions{WarmupRepetitions: warmups, GroupBy: groupBy})
	return r.write()
}

// rawPath is where a repetition's raw tool output goes.
func (r *Result) rawPath(rep int, file string) (string, error) {
	dir := filepath.Join(r.Dir, "raw", strconv.Itoa(rep))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, file), nil
}

// Summary is the run's summary.json.
func (r *Result) Summary() results.RunSummary {
	return results.RunSummary{
		Kind: r.Kind, Namespace: r.namespace, Name: r.Name, RunUID: r.RunUID, Started: r.started.UTC(), Finished: r.now().UTC(),
		Nodes: []results.NodeInfo{r.Node}, Summaries: r.Summaries, Labels: r.labels,
	}
}

// write stores samples.ndjson, samples.csv, summary.json and nodes.json.
func (r *Result) write() error {
	files, err := results.EncodeRunFiles(r.Samples, r.Summary())
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(r.Dir, f.Name), f.Data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", f.Name, err)
		}
	}
	return nil
}

// describeRepetitions says how often a benchmark runs and how many of the
// first runs are warm-ups: "3 repetition(s)", "4 repetition(s), the first 1
// a warm-up (not counted)". Warm-up iterations inside a tool are another
// thing, and the tool's options say them.
func describeRepetitions(p benchv1.RepetitionPolicy) string {
	s := fmt.Sprintf("%d repetition(s)", p.Repetitions)
	if p.WarmupRepetitions > 0 {
		s += fmt.Sprintf(", the first %d a warm-up (not counted)", p.WarmupRepetitions)
	}
	return s
}
