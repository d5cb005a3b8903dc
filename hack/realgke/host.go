package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Spec is a node to start in a slot, as hack/clusterkit/node takes it.
type Spec struct {
	Name   string            // the Node's name
	Labels map[string]string // registered by the kubelet (--node-labels)
	Taints []corev1.Taint    // registered by the kubelet (--register-with-taints)
}

// Nodes starts and stops the nodes of the machine's slots:
// hack/clusterkit/node's Host. Start brings a node's processes up without
// waiting for it to be Ready; Stop stops them and removes what they left on
// the host, and does not touch the Node object. Stop of an empty slot is a
// no-op.
type Nodes interface {
	Start(ctx context.Context, slot int, s Spec) error
	Stop(ctx context.Context, slot int) error
}

// loadHost reads the node host's configuration (--host-config). It becomes
// node.LoadHost(file) once hack/clusterkit/node lands (issue 42).
func loadHost(file string) (Nodes, error) {
	return nil, fmt.Errorf("--host-config %s: the node lifecycle (hack/clusterkit/node) is not in this build yet", file)
}
