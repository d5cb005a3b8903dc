package benchrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/report"
	"github.com/benchwright/benchwright/internal/results"
)

// Run is one benchmark run's place in the artifact store.
type Run struct {
	Store    *artifacts.Store
	Location artifacts.Location
	// Started and Finished go into summary.json.
	Started, Finished time.Time
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

// AddRepetition adds a repetition's samples and nodes to those already stored
// (replacing an earlier copy of the same repetition, so a repeated reconcile
// does not count it twice), rewrites samples.ndjson, samples.csv,
// summary.json and nodes.json, and returns the statistics over all of them.
func (r Run) AddRepetition(ctx context.Context, rep int, samples []results.Sample, nodes []results.NodeInfo, opts results.SummarizeOptions) ([]results.Summary, error) {
	stored, err := r.samples(ctx)
	if err != nil {
		return nil, err
	}
	var all []results.Sample
	for _, s := range stored {
		if s.Repetition != rep {
			all = append(all, s)
		}
	}
	all = append(all, samples...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Repetition < all[j].Repetition })
	known, err := r.nodes(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		known[n.Hostname] = n
	}
	summaries := results.Summarize(all, opts)
	return summaries, r.write(ctx, all, summaries, known)
}

func (r Run) samples(ctx context.Context) ([]results.Sample, error) {
	key, err := r.Location.SamplesNDJSON()
	if err != nil {
		return nil, err
	}
	data, err := r.Store.Get(ctx, key)
	switch {
	case errors.Is(err, artifacts.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	s, err := results.ReadNDJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading the stored samples: %w", err)
	}
	return s, nil
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

// write stores every result file, so the store always holds a consistent
// picture of the run so far.
func (r Run) write(ctx context.Context, all []results.Sample, summaries []results.Summary, nodes map[string]results.NodeInfo) error {
	nodeList := make([]results.NodeInfo, 0, len(nodes))
	for _, n := range nodes {
		nodeList = append(nodeList, n)
	}
	sort.Slice(nodeList, func(i, j int) bool { return nodeList[i].Hostname < nodeList[j].Hostname })
	loc := r.Location
	files, err := results.EncodeRunFiles(all, results.RunSummary{
		Kind: loc.Kind, Namespace: loc.Namespace, Name: loc.Name, RunUID: loc.UID,
		Started: r.Started.UTC(), Finished: r.Finished.UTC().Truncate(time.Second), Nodes: nodeList, Summaries: summaries,
	})
	if err != nil {
		return err
	}
	prefix, err := loc.Prefix()
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := r.Store.Put(ctx, prefix+f.Name, f.Data, f.ContentType); err != nil {
			return err
		}
	}
	return nil
}

// WriteReport renders the run's report.html from its stored samples (the
// page the manager's artifact server links to).
func (r Run) WriteReport(ctx context.Context) error {
	stored, err := r.samples(ctx)
	if err != nil {
		return err
	}
	runs, err := report.Group([]report.Set{{Origin: r.Location.Name, Samples: stored}})
	if err != nil {
		return err
	}
	rep, err := report.New(runs, report.Options{Title: r.Location.Kind + " " + r.Location.Namespace + "/" + r.Location.Name})
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := rep.WriteHTML(&page); err != nil {
		return err
	}
	key, err := r.Location.Report()
	if err != nil {
		return err
	}
	return r.Store.Put(ctx, key, page.Bytes(), "text/html; charset=utf-8")
}
