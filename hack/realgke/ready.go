package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pollEvery is how often the API server is read while waiting.
const pollEvery = 250 * time.Millisecond

// waitReady waits until every member is a Ready Node with the labels and
// taints, logging each as it joins; after readyTimeout it fails with what is
// still missing (a node's last Ready condition message).
func (p *Provisioner) waitReady(ctx context.Context, pool string, members []member, start time.Time) error {
	deadline := time.Now().Add(p.readyTimeout)
	joined := map[string]bool{}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		var missing []error
		for _, m := range members {
			if joined[m.spec.Name] {
				continue
			}
			if err := p.nodeReady(ctx, m.spec); err != nil {
				missing = append(missing, err)
				continue
			}
			joined[m.spec.Name] = true
			fmt.Fprintf(p.log, "realgke: node %s of pool %s joined (slot %d) in %.1f s\n", m.spec.Name, pool, m.slot, time.Since(start).Seconds())
		}
		switch {
		case len(missing) == 0:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("nodes not Ready after %s: %w", p.readyTimeout, errors.Join(missing...))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// nodeReady is nil when the Node is Ready with the labels and taints, else
// what it lacks.
func (p *Provisioner) nodeReady(ctx context.Context, s Spec) error {
	name := s.Name
	node, err := p.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("node %s has not registered", name)
	case err != nil:
		return fmt.Errorf("node %s: %w", name, err)
	}
	for k, v := range s.Labels {
		if node.Labels[k] != v {
			return fmt.Errorf("node %s lacks the label %s=%s", name, k, v)
		}
	}
	for _, t := range s.Taints {
		if !hasTaint(node.Spec.Taints, t) {
			return fmt.Errorf("node %s lacks the taint %s", name, t.ToString())
		}
	}
	for _, c := range node.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		if c.Status == corev1.ConditionTrue {
			return nil
		}
		return fmt.Errorf("node %s is not Ready (%s: %s)", name, c.Reason, c.Message)
	}
	return fmt.Errorf("node %s reports no Ready condition yet", name)
}

func hasTaint(taints []corev1.Taint, want corev1.Taint) bool {
	for _, t := range taints {
		if t.MatchTaint(&want) && t.Value == want.Value {
			return true
		}
	}
	return false
}
