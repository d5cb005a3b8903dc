package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// drain cordons a node and deletes its pods as GKE's drain does before it
// removes a VM: "When you delete a node pool, GKE drains all the nodes ...
// deleting Pods ... with an allotted graceful termination period of MAX_POD,
// the maximum terminationGracePeriodSeconds set on the Pods scheduled to the
// node with a cap of one hour" (gcloud container node-pools delete,
// https://cloud.google.com/sdk/gcloud/reference/container/node-pools/delete).
// Here the cap is maxGrace (60 s), not an hour, so that a campaign's release
// is not held up; then what is left is deleted at once. It waits for the pods it deleted only, not for
// those a DaemonSet puts back on the cordoned node. A node that never
// registered has nothing to drain.
func (p *Provisioner) drain(ctx context.Context, name string) error {
	_, err := p.kube.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType,
		[]byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("cordoning node %s: %w", name, err)
	}
	pods, err := p.podsOn(ctx, name)
	if err != nil {
		return err
	}
	var grace time.Duration
	deleted := map[types.UID]bool{}
	for _, pod := range pods {
		g := min(time.Duration(ptr.Deref(pod.Spec.TerminationGracePeriodSeconds, corev1.DefaultTerminationGracePeriodSeconds))*time.Second, p.maxGrace)
		grace = max(grace, g)
		if err := p.deletePod(ctx, pod, g); err != nil {
			return err
		}
		deleted[pod.UID] = true
	}
	deadline := time.Now().Add(grace)
	for slices.ContainsFunc(pods, func(pod corev1.Pod) bool { return deleted[pod.UID] }) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
		if pods, err = p.podsOn(ctx, name); err != nil {
			return err
		}
	}
	return p.forceDeletePods(ctx, name)
}

// forceDeletePods deletes the pods bound to a node without a grace period.
func (p *Provisioner) forceDeletePods(ctx context.Context, name string) error {
	pods, err := p.podsOn(ctx, name)
	if err != nil {
		return err
	}
	for _, pod := range pods {
		if err := p.deletePod(ctx, pod, 0); err != nil {
			return err
		}
	}
	return nil
}

func (p *Provisioner) podsOn(ctx context.Context, name string) ([]corev1.Pod, error) {
	list, err := p.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", name).String(),
	})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of node %s: %w", name, err)
	}
	return list.Items, nil
}

func (p *Provisioner) deletePod(ctx context.Context, pod corev1.Pod, grace time.Duration) error {
	err := p.kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To(int64(grace / time.Second)),
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting pod %s/%s of node %s: %w", pod.Namespace, pod.Name, pod.Spec.NodeName, err)
	}
	return nil
}

// deleteNode deletes a Node object, then the pods still bound to it (a
// DaemonSet's, put back while it drained).
func (p *Provisioner) deleteNode(ctx context.Context, name string) error {
	err := p.kube.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting node %s: %w", name, err)
	}
	return p.forceDeletePods(ctx, name)
}

// ownNodes are the Nodes this endpoint makes: GKE's node-pool label and a
// name of this cluster's nodes (the real cluster's own nodes carry the label
// too, under other names).
func (p *Provisioner) ownNodes(ctx context.Context) ([]string, error) {
	list, err := p.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: LabelNodePool})
	if err != nil {
		return nil, fmt.Errorf("listing the GKE nodes: %w", err)
	}
	var names []string
	for _, n := range list.Items {
		if strings.HasPrefix(n.Name, nodeNamePrefix(p.cluster.Name)) {
			names = append(names, n.Name)
		}
	}
	return names, nil
}
