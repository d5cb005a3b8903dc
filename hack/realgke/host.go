package main

import (
	"context"

	"github.com/benchwright/benchwright/hack/clusterkit/node"
)

// Spec is a node to start in a slot.
type Spec = node.Spec

// Nodes starts and stops the nodes of the machine's slots:
// hack/clusterkit/node's Host. Start brings a node's processes up without
// waiting for it to be Ready; Stop stops them and removes what they left on
// the host, and does not touch the Node object. Stop of an empty slot is a
// no-op.
type Nodes interface {
	Start(ctx context.Context, slot int, s Spec) error
	Stop(ctx context.Context, slot int) error
}

// loadHost reads the node host's configuration (--host-config, written by
// hack/real-cluster.sh).
func loadHost(file string) (Nodes, error) { return node.LoadHost(file) }
