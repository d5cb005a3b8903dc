package gke

import (
	"context"
	"fmt"
	"sync"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/api/option"
)

// Provider creates, watches and deletes node pools through the GKE API.
type Provider struct {
	client *container.ClusterManagerClient

	mu       sync.Mutex
	clusters map[Cluster]ClusterInfo // the last read of each cluster
}

// New connects to the GKE API. Without options the credentials come from
// Application Default Credentials (Workload Identity in the cluster); tests
// pass the fake server's endpoint (see test/fakegke.ClientOptions).
func New(ctx context.Context, opts ...option.ClientOption) (*Provider, error) {
	c, err := container.NewClusterManagerClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to the GKE API: %w", err)
	}
	return &Provider{client: c, clusters: map[Cluster]ClusterInfo{}}, nil
}

// Close closes the connection.
func (p *Provider) Close() error { return p.client.Close() }

// Create asks GKE to create the node pool (see NodePoolRequest) and returns
// the name of the long-running operation to poll with Operation.
func (p *Provider) Create(ctx context.Context, c Cluster, np *containerpb.NodePool) (string, error) {
	if err := c.Validate(); err != nil {
		return "", err
	}
	op, err := p.client.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: c.Parent(), NodePool: np})
	if err != nil {
		e := classifyErr(err)
		if e.Kind == NotFound {
			// The cluster (or project) does not exist: a configuration error.
			e = &Error{Kind: InvalidConfig, Message: e.Message, Err: e.Err}
		}
		return "", e
	}
	return op.GetName(), nil
}

// Operation reports whether the operation has finished. An operation that
// ended in failure returns done and its classified *Error (a create that ends
// in error leaves the node pool in status ERROR: delete it). An error with
// done false means the operation could not be read.
func (p *Provider) Operation(ctx context.Context, c Cluster, opName string) (bool, error) {
	op, err := p.client.GetOperation(ctx, &containerpb.GetOperationRequest{Name: c.OperationPath(opName)})
	if err != nil {
		return false, Classify(err)
	}
	if op.GetStatus() != containerpb.Operation_DONE {
		return false, nil
	}
	return true, operationError(op)
}

// Get reads the node pool; a pool that does not exist is ErrNotFound.
func (p *Provider) Get(ctx context.Context, c Cluster, name string) (*containerpb.NodePool, error) {
	np, err := p.client.GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: c.NodePoolPath(name)})
	if err != nil {
		return nil, Classify(err)
	}
	return np, nil
}

// List returns the cluster's node pools.
func (p *Provider) List(ctx context.Context, c Cluster) ([]*containerpb.NodePool, error) {
	resp, err := p.client.ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: c.Parent()})
	if err != nil {
		return nil, Classify(err)
	}
	return resp.GetNodePools(), nil
}

// Delete asks GKE to delete the node pool and returns the operation's name. A
// pool that does not exist returns "" and no error, so deleting twice is fine;
// a pool still busy with another operation returns a Transient error.
func (p *Provider) Delete(ctx context.Context, c Cluster, name string) (string, error) {
	op, err := p.client.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: c.NodePoolPath(name)})
	if err != nil {
		if e := classifyErr(err); e.Kind != NotFound {
			return "", e
		}
		return "", nil
	}
	return op.GetName(), nil
}
