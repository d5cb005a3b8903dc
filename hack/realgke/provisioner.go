package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
)

// Provisioner is the fake GKE's Work hook on this machine: a node pool's
// create starts its nodes in free slots and returns once they are Ready
// Nodes; its delete drains and stops them and deletes their Node objects.
type Provisioner struct {
	cluster gke.Cluster
	nodes   Nodes
	kube    kubernetes.Interface
	slots   *slots
	log     io.Writer
	// readyTimeout bounds a create's wait for Ready nodes.
	readyTimeout time.Duration
	// maxGrace bounds a drained pod's grace period.
	maxGrace time.Duration

	mu    sync.Mutex
	pools map[string][]member // parent/nodePools/name -> its nodes
}

// member is a node of a pool and its slot.
type member struct {
	slot int
	spec Spec
}

// Timeouts GKE's operations are held to here.
const (
	defaultReadyTimeout = 5 * time.Minute
	defaultMaxGrace     = 60 * time.Second
)

// NewProvisioner provisions the nodes of cluster's pools in the slots, with
// nodes and the admin client kube; it logs to log.
func NewProvisioner(cluster gke.Cluster, nodes Nodes, kube kubernetes.Interface, slotNumbers []int, log io.Writer) *Provisioner {
	return &Provisioner{
		cluster: cluster, nodes: nodes, kube: kube, slots: newSlots(slotNumbers), log: log,
		readyTimeout: defaultReadyTimeout, maxGrace: defaultMaxGrace,
		pools: map[string][]member{},
	}
}

// Work is the fakegke.Work hook.
func (p *Provisioner) Work(ctx context.Context, typ containerpb.Operation_Type, parent string, np *containerpb.NodePool) error {
	if parent != p.cluster.Parent() {
		return fmt.Errorf("cluster %s is not this machine's (%s)", parent, p.cluster.Parent())
	}
	switch typ {
	case containerpb.Operation_CREATE_NODE_POOL:
		return p.create(ctx, np)
	case containerpb.Operation_DELETE_NODE_POOL:
		return p.delete(ctx, np.GetName())
	}
	return fmt.Errorf("operation %s is not a node-pool create or delete", typ)
}

func (p *Provisioner) key(pool string) string { return p.cluster.NodePoolPath(pool) }

// create takes the pool's slots, starts its nodes and waits until they are
// Ready. Without enough free slots it fails with GKE's stockout; any other
// failure stops what it started and frees the slots.
func (p *Provisioner) create(ctx context.Context, np *containerpb.NodePool) error {
	specs, err := poolSpecs(p.cluster, np)
	if err != nil {
		return err
	}
	taken, ok := p.slots.take(p.key(np.GetName()), len(specs))
	if !ok {
		last := specs[len(specs)-1]
		return fakegke.StockoutDuringProvisioning(p.cluster.Project, last.Labels[corev1.LabelTopologyZone], last.Name)
	}
	members := make([]member, len(specs))
	for i := range members {
		members[i] = member{slot: taken[i], spec: specs[i]}
	}
	start := time.Now()
	err = p.startAll(ctx, members)
	if err == nil {
		err = p.waitReady(ctx, np.GetName(), members, start)
	}
	if err != nil {
		// What could not be removed stays the pool's: deleting the pool in
		// ERROR, as the provider does, tries again.
		left, rmErr := p.remove(context.WithoutCancel(ctx), np.GetName(), members)
		p.setPool(np.GetName(), left)
		return errors.Join(fmt.Errorf("creating node pool %s: %w", np.GetName(), err), rmErr)
	}
	p.setPool(np.GetName(), members)
	return nil
}

// setPool records the nodes of a pool; none forgets it.
func (p *Provisioner) setPool(pool string, members []member) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(members) == 0 {
		delete(p.pools, p.key(pool))
		return
	}
	p.pools[p.key(pool)] = members
}

func (p *Provisioner) startAll(ctx context.Context, members []member) error {
	for _, m := range members {
		if err := p.nodes.Start(ctx, m.slot, m.spec); err != nil {
			return fmt.Errorf("starting node %s in slot %d: %w", m.spec.Name, m.slot, err)
		}
	}
	return nil
}

// delete drains and removes the pool's nodes. A pool without nodes here (its
// create failed) has nothing to remove.
func (p *Provisioner) delete(ctx context.Context, pool string) error {
	p.mu.Lock()
	members := p.pools[p.key(pool)]
	p.mu.Unlock()
	left, err := p.remove(ctx, pool, members)
	p.setPool(pool, left)
	if err != nil {
		return fmt.Errorf("deleting node pool %s: %w", pool, err)
	}
	return nil
}

// remove drains, stops and deletes the members' nodes at once, frees the
// slots of those that went and returns those that did not.
func (p *Provisioner) remove(ctx context.Context, pool string, members []member) ([]member, error) {
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Go(func() {
			start := time.Now()
			if errs[i] = p.removeNode(ctx, m); errs[i] == nil {
				p.slots.free([]int{m.slot})
				fmt.Fprintf(p.log, "realgke: node %s of pool %s left (slot %d) in %.1f s\n", m.spec.Name, pool, m.slot, time.Since(start).Seconds())
			}
		})
	}
	wg.Wait()
	var left []member
	for i, m := range members {
		if errs[i] != nil {
			left = append(left, m)
		}
	}
	return left, errors.Join(errs...)
}

// removeNode drains a node as GKE does before it deletes the VM, stops it and
// deletes its Node object.
func (p *Provisioner) removeNode(ctx context.Context, m member) error {
	if err := p.drain(ctx, m.spec.Name); err != nil {
		return err
	}
	if err := p.nodes.Stop(ctx, m.slot); err != nil {
		return fmt.Errorf("stopping node %s in slot %d: %w", m.spec.Name, m.slot, err)
	}
	return p.deleteNode(ctx, m.spec.Name)
}

// Clean stops every slot and deletes the Nodes of this cluster's pools an
// earlier run left: the fake's pools live in memory, so after a restart GKE
// knows none of them.
func (p *Provisioner) Clean(ctx context.Context) error {
	var errs []error
	for _, slot := range p.slots.numbers() {
		if err := p.nodes.Stop(ctx, slot); err != nil {
			errs = append(errs, fmt.Errorf("stopping slot %d: %w", slot, err))
		}
	}
	left, err := p.ownNodes(ctx)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, name := range left {
		if err := p.deleteNode(ctx, name); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(p.log, "realgke: node %s, left by an earlier run, deleted\n", name)
	}
	return errors.Join(errs...)
}
