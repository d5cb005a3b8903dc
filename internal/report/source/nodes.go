package source

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
)

// NodesFile is a stored run's nodes, beside its samples: each node's
// machine and the windows its repetitions ran in.
const NodesFile = results.NodesFile

// MaxNodesBytes bounds a nodes.json read: hostile input.
const MaxNodesBytes = 8 << 20

// NodesSource is a Source that can read the nodes.json of each run.
type NodesSource interface {
	// RunNodes hands found the nodes of each of inputs (as Samples names
	// them) whose nodes.json has some; a missing or garbled one is skipped
	// (a run stored before nodes.json, a local run). The error is one that
	// stops the reading as a whole.
	RunNodes(ctx context.Context, inputs []string, found func(input string, nodes []results.NodeInfo)) error
}

// DecodeNodes reads a nodes.json, at most MaxNodesBytes of it; nil when it
// has no node or is not one.
func DecodeNodes(r io.Reader) []results.NodeInfo {
	var nodes []results.NodeInfo
	if err := json.NewDecoder(io.LimitReader(r, MaxNodesBytes)).Decode(&nodes); err != nil {
		return nil
	}
	return nodes
}

// RunNodes implements NodesSource: the nodes.json beside each
// samples.ndjson input.
func (f Files) RunNodes(ctx context.Context, inputs []string, found func(string, []results.NodeInfo)) error {
	for _, input := range inputs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if artifacts.IsURL(input) || filepath.Base(input) != SamplesFile {
			continue
		}
		p := filepath.Join(filepath.Dir(input), NodesFile)
		if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
			continue // none, or not a file (a link to a pipe or device)
		}
		file, err := os.Open(p)
		if err != nil {
			continue
		}
		nodes := DecodeNodes(file)
		_ = file.Close()
		if len(nodes) > 0 {
			found(input, nodes)
		}
	}
	return nil
}

// RunNodes implements NodesSource: the nodes.json beside each
// samples.ndjson of the store that is an input.
func (u StoreRuns) RunNodes(ctx context.Context, inputs []string, found func(string, []results.NodeInfo)) error {
	store, err := artifacts.Open(ctx, string(u))
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	for _, input := range inputs {
		key, ok := strings.CutPrefix(input, store.URI(""))
		if !ok || (key != SamplesFile && !strings.HasSuffix(key, "/"+SamplesFile)) {
			continue
		}
		r, err := store.NewReader(ctx, strings.TrimSuffix(key, SamplesFile)+NodesFile)
		if err != nil {
			continue
		}
		nodes := DecodeNodes(r)
		_ = r.Close()
		if len(nodes) > 0 {
			found(input, nodes)
		}
	}
	return ctx.Err()
}

// RunNodes implements NodesSource: each source's that is one.
func (m multi) RunNodes(ctx context.Context, inputs []string, found func(string, []results.NodeInfo)) error {
	return eachOf(ctx, m, func(ns NodesSource) error { return ns.RunNodes(ctx, inputs, found) })
}
