package runstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/page"
	"github.com/benchwright/benchwright/internal/results"
)

// Run is one benchmark run's place in the artifact store.
type Run struct {
	Store    *artifacts.Store
	Location artifacts.Location
	// Started and Finished go into summary.json.
	Started, Finished time.Time
	// Labels are the benchmark's labels, for summary.json.
	Labels map[string]string
}

// URI is where the run's files are, for status.artifactURI.
func (r Run) URI() string {
	prefix, err := r.Location.Prefix()
	if err != nil {
		return ""
	}
	return r.Store.URI(prefix)
}

// PutRawLog keeps a pod's own output, finished or failed.
func (r Run) PutRawLog(ctx context.Context, rep int, pod string, raw []byte) error {
	key, err := r.Location.RawLog(rep, pod)
	if err != nil {
		return err
	}
	return r.Store.Put(ctx, key, raw, "text/plain; charset=utf-8")
}

// PutRawLogFrom keeps a pod's own output as it reads it from r, never
// holding it: a read error aborts the write, and the object stays as it was.
func (r Run) PutRawLogFrom(ctx context.Context, rep int, pod string, raw io.Reader) error {
	key, err := r.Location.RawLog(rep, pod)
	if err != nil {
		return err
	}
	return r.putStream(ctx, key, "text/plain; charset=utf-8", func(w io.Writer) error {
		_, err := io.Copy(w, raw)
		return err
	})
}

// PutMonitor keeps the sampler's series of a pod (JSON).
func (r Run) PutMonitor(ctx context.Context, rep int, pod string, series []byte) error {
	key, err := r.Location.Monitor(rep, pod)
	if err != nil {
		return err
	}
	return r.Store.Put(ctx, key, series, "application/json")
}

// PutJobFile keeps the fio job file the run's pods were given.
func (r Run) PutJobFile(ctx context.Context, jobFile []byte) error {
	key, err := r.Location.JobFile()
	if err != nil {
		return err
	}
	return r.Store.Put(ctx, key, jobFile, "text/plain; charset=utf-8")
}

// PutSteps keeps the steps the run's MPI launchers were given.
func (r Run) PutSteps(ctx context.Context, steps []byte) error {
	key, err := r.Location.Steps()
	if err != nil {
		return err
	}
	return r.Store.Put(ctx, key, steps, "application/json")
}

// AddRepetition adds a repetition's samples and nodes to those already stored
// (replacing an earlier copy of the same repetition, so a repeated reconcile
// does not count it twice), rewrites samples.ndjson, samples.csv,
// summary.json and nodes.json, and returns the statistics over all of them.
// What a manager killed mid-upload left of the run's files goes first: the
// repetition it was storing is stored again now.
// The stored samples are streamed, never held: a run costs the memory of its
// new repetition and of its statistics. A run of more than
// results.MaxRunSamples samples fails with OutputTooLarge, storing nothing.
func (r Run) AddRepetition(ctx context.Context, rep int, samples []results.Sample, nodes []results.NodeInfo, opts results.SummarizeOptions) ([]results.Summary, error) {
	prefix, err := r.Location.Prefix()
	if err != nil {
		return nil, err
	}
	if err := r.Store.RemovePartial(prefix); err != nil {
		return nil, err
	}
	sum := results.NewSummarizer(opts)
	labelKeys := map[string]bool{}
	n := 0
	err = r.merged(ctx, rep, samples, func(s *results.Sample) error {
		if n++; n > maxRunSamples {
			return results.ErrTooManySamples
		}
		sum.Add(s)
		for k := range s.Labels {
			labelKeys[k] = true
		}
		return nil
	})
	if errors.Is(err, results.ErrTooManySamples) {
		return nil, TooManySamples(fmt.Sprintf("with repetition %d, the run", rep+1))
	}
	if err != nil {
		return nil, err
	}
	known, err := r.nodes(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		n.Windows = results.MergeWindows(known[n.Hostname].Windows, n.Windows)
		known[n.Hostname] = n
	}
	summaries := sum.Summaries()
	return summaries, r.write(ctx, rep, samples, labelKeys, summaries, known)
}

// maxRunSamples is results.MaxRunSamples, lowered by tests.
var maxRunSamples = results.MaxRunSamples

// TooManySamples fails a run over results.MaxRunSamples; what says what is.
func TooManySamples(what string) error {
	return outcome.Fail(benchv1.ReasonOutputTooLarge, fmt.Sprintf(
		"%s has more than %d samples, the most the manager keeps of one run (MaxRunSamples, so that no output can exhaust its memory): split the benchmark, or run fewer repetitions, jobs, tests or pairs",
		what, maxRunSamples))
}

func (r Run) nodes(ctx context.Context) (map[string]results.NodeInfo, error) {
	key, err := r.Location.Nodes()
	if err != nil {
		return nil, err
	}
	nodes := map[string]results.NodeInfo{}
	data, err := r.Store.Get(ctx, key)
	switch {
	case errors.Is(err, artifacts.ErrNotFound):
		return nodes, nil
	case err != nil:
		return nil, err
	}
	var list []results.NodeInfo
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("reading the stored nodes.json: %w", err)
	}
	for _, n := range list {
		nodes[n.Hostname] = n
	}
	return nodes, nil
}

// Outcome is outcome.json: how the run ended.
type Outcome struct {
	Outcome   string    `json:"outcome"`
	Completed time.Time `json:"completed"`
}

// OutcomeSucceeded is Outcome.Outcome of a run whose repetitions all completed.
const OutcomeSucceeded = "Succeeded"

// PutSucceeded writes outcome.json: the run is over and its figures count.
func (r Run) PutSucceeded(ctx context.Context, completed time.Time) error {
	key, err := r.Location.Outcome()
	if err != nil {
		return err
	}
	data, err := json.Marshal(Outcome{Outcome: OutcomeSucceeded, Completed: completed.UTC()})
	if err != nil {
		return err
	}
	return r.Store.Put(ctx, key, append(data, '\n'), "application/json")
}

// WriteReport renders the run's report.html from its stored samples, read a
// line at a time, and its nodes' series (the page the manager's artifact
// server links to).
func (r Run) WriteReport(ctx context.Context) error {
	runs, err := compare.Load(ctx, storedRun(r))
	if err != nil {
		return err
	}
	if err := compare.ReadMonitors(ctx, storedRun(r), runs); err != nil {
		return err
	}
	rep, err := page.New(runs, page.Options{Title: r.Location.Kind + " " + r.Location.Namespace + "/" + r.Location.Name})
	if err != nil {
		return err
	}
	var html bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		return err
	}
	key, err := r.Location.Report()
	if err != nil {
		return err
	}
	return r.Store.Put(ctx, key, html.Bytes(), "text/html; charset=utf-8")
}
