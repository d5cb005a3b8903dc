package source

import (
	"context"
	"encoding/json"
	"io"

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
	return fileBeside(ctx, inputs, NodesFile, nodesOf, found)
}

// RunNodes implements NodesSource: the nodes.json beside each
// samples.ndjson of the store that is an input.
func (u StoreRuns) RunNodes(ctx context.Context, inputs []string, found func(string, []results.NodeInfo)) error {
	return storeBeside(ctx, u, inputs, NodesFile, nodesOf, found)
}

// nodesOf is a nodes.json's nodes; false when it holds none.
func nodesOf(r io.Reader) ([]results.NodeInfo, bool) {
	nodes := DecodeNodes(r)
	return nodes, len(nodes) > 0
}

// RunNodes implements NodesSource: each source's that is one.
func (m multi) RunNodes(ctx context.Context, inputs []string, found func(string, []results.NodeInfo)) error {
	return eachOf(ctx, m, func(ns NodesSource) error { return ns.RunNodes(ctx, inputs, found) })
}
