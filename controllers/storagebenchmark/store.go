package storagebenchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
)

func location(b *benchv1.StorageBenchmark) artifacts.Location {
	return artifacts.Location{Namespace: b.Namespace, Kind: kind, Name: b.Name, UID: string(b.UID)}
}

// storeRawLog keeps a pod's own output, finished or failed.
func (r *Reconciler) storeRawLog(ctx context.Context, b *benchv1.StorageBenchmark, rep int, pod string, raw []byte) error {
	key, err := location(b).RawLog(rep, pod)
	if err != nil {
		return err
	}
	return r.Store.Put(ctx, key, raw, "text/plain; charset=utf-8")
}

// storeRepetition adds a repetition's samples and nodes to those already in
// the store (replacing any earlier copy of the same repetition, so a retried
// reconcile does not count it twice) and rewrites every result file. It
// returns all samples so far.
func (r *Reconciler) storeRepetition(ctx context.Context, b *benchv1.StorageBenchmark, rep int, outputs []podOutput) ([]results.Sample, []results.Summary, error) {
	loc := location(b)
	samplesKey, err := loc.SamplesNDJSON()
	if err != nil {
		return nil, nil, err
	}
	var all []results.Sample
	if data, err := r.Store.Get(ctx, samplesKey); err == nil {
		stored, err := results.ReadNDJSON(bytes.NewReader(data))
		if err != nil {
			return nil, nil, fmt.Errorf("reading the stored samples: %w", err)
		}
		for _, s := range stored {
			if s.Repetition != rep {
				all = append(all, s)
			}
		}
	} else if !errors.Is(err, artifacts.ErrNotFound) {
		return nil, nil, err
	}
	nodes, err := r.storedNodes(ctx, loc)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range outputs {
		all = append(all, o.samples...)
		nodes[o.node.Hostname] = o.node
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Repetition < all[j].Repetition })
	summaries := results.Summarize(all, results.SummarizeOptions{WarmupRepetitions: int(b.Spec.WarmupRepetitions)})
	if err := r.writeResultFiles(ctx, b, all, summaries, nodes); err != nil {
		return nil, nil, err
	}
	return all, summaries, nil
}

func (r *Reconciler) storedNodes(ctx context.Context, loc artifacts.Location) (map[string]results.NodeInfo, error) {
	key, err := loc.Nodes()
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

// writeResultFiles writes samples.ndjson, samples.csv, summary.json and
// nodes.json, so the store always holds a consistent picture of the run so far.
func (r *Reconciler) writeResultFiles(ctx context.Context, b *benchv1.StorageBenchmark, all []results.Sample, summaries []results.Summary, nodes map[string]results.NodeInfo) error {
	loc := location(b)
	nodeList := make([]results.NodeInfo, 0, len(nodes))
	for _, n := range nodes {
		nodeList = append(nodeList, n)
	}
	sort.Slice(nodeList, func(i, j int) bool { return nodeList[i].Hostname < nodeList[j].Hostname })
	started := r.now()
	if b.Status.StartTime != nil {
		started = b.Status.StartTime.Time
	}
	var nd, csv bytes.Buffer
	if err := results.WriteNDJSON(&nd, all); err != nil {
		return err
	}
	if err := results.WriteCSV(&csv, all); err != nil {
		return err
	}
	summary, err := json.MarshalIndent(results.RunSummary{
		Kind: kind, Namespace: b.Namespace, Name: b.Name, RunUID: string(b.UID),
		Started: started.UTC(), Finished: r.now().UTC().Truncate(time.Second), Nodes: nodeList, Summaries: summaries,
	}, "", "  ")
	if err != nil {
		return err
	}
	nodesJSON, err := json.MarshalIndent(nodeList, "", "  ")
	if err != nil {
		return err
	}
	files := []struct {
		key         func() (string, error)
		data        []byte
		contentType string
	}{
		{loc.SamplesNDJSON, nd.Bytes(), "application/x-ndjson"},
		{loc.SamplesCSV, csv.Bytes(), "text/csv"},
		{loc.Summary, append(summary, '\n'), "application/json"},
		{loc.Nodes, append(nodesJSON, '\n'), "application/json"},
	}
	for _, f := range files {
		key, err := f.key()
		if err != nil {
			return err
		}
		if err := r.Store.Put(ctx, key, f.data, f.contentType); err != nil {
			return err
		}
	}
	return nil
}
