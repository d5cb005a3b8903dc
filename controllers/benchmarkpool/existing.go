package benchmarkpool

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// poolTaint keeps every pod but the pool's benchmarks off its nodes.
func poolTaint(pool string) corev1.Taint {
	return corev1.Taint{Key: benchv1.PoolLabel, Value: pool, Effect: corev1.TaintEffectNoSchedule}
}

// claimExisting labels (and taints) the nodes an existing pool selects, and
// releases nodes it labelled that the selector no longer matches. A node that
// belongs to another pool is left alone and named in the returned conflicts.
func (r *Reconciler) claimExisting(ctx context.Context, p *benchv1.BenchmarkPool) (conflicts []string, err error) {
	var selected corev1.NodeList
	if err := r.List(ctx, &selected, client.MatchingLabels(p.Spec.Existing.NodeSelector)); err != nil {
		return nil, err
	}
	// In name order, so the left-out list reads the same every time.
	slices.SortFunc(selected.Items, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	taint := p.Spec.Existing.Taint == nil || *p.Spec.Existing.Taint
	chosen := map[string]bool{}
	for i := range selected.Items {
		n := &selected.Items[i]
		if why := notBenchmarkNode(n); why != "" {
			conflicts = append(conflicts, why)
			continue
		}
		if owner := n.Labels[benchv1.PoolLabel]; owner != "" && owner != p.Name {
			conflicts = append(conflicts, fmt.Sprintf("node %s belongs to BenchmarkPool %s", n.Name, owner))
			continue
		}
		chosen[n.Name] = true
		if err := r.markNode(ctx, n, p.Name, taint); err != nil {
			return nil, err
		}
	}
	if err := r.releaseExcept(ctx, p.Name, chosen); err != nil {
		return nil, err
	}
	return summarize(conflicts), nil
}

// notBenchmarkNode says why a selected node must not join an existing pool:
// a control-plane node never does, and any other only with the admin's
// opt-in label. "" when it may.
func notBenchmarkNode(n *corev1.Node) string {
	for _, l := range benchv1.ControlPlaneLabels {
		if _, ok := n.Labels[l]; ok {
			return fmt.Sprintf("node %s is a control-plane node", n.Name)
		}
	}
	if n.Labels[benchv1.BenchmarkNodeLabel] != "true" {
		return fmt.Sprintf("node %s lacks the admin's opt-in label %s=true", n.Name, benchv1.BenchmarkNodeLabel)
	}
	return ""
}

// summarize keeps a long list of left-out nodes short.
func summarize(conflicts []string) []string {
	const shown = 5
	if len(conflicts) <= shown {
		return conflicts
	}
	return append(conflicts[:shown:shown], fmt.Sprintf("and %d more", len(conflicts)-shown))
}

// markNode puts the pool's label, and its taint when asked, on a node. The
// patch holds n's resourceVersion: n read before another pool claimed the
// node conflicts rather than takes it.
func (r *Reconciler) markNode(ctx context.Context, n *corev1.Node, pool string, taint bool) error {
	want := poolTaint(pool)
	hasTaint := slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&want) && t.Value == pool })
	if n.Labels[benchv1.PoolLabel] == pool && hasTaint == taint {
		return nil
	}
	patch := client.MergeFromWithOptions(n.DeepCopy(), client.MergeFromWithOptimisticLock{})
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels[benchv1.PoolLabel] = pool
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == benchv1.PoolLabel })
	if taint {
		n.Spec.Taints = append(n.Spec.Taints, want)
	}
	return r.Patch(ctx, n, patch)
}

// releaseNode removes the pool's label and taint from a node, if n, read at
// its resourceVersion, is still the pool's.
func (r *Reconciler) releaseNode(ctx context.Context, n *corev1.Node, pool string) error {
	if n.Labels[benchv1.PoolLabel] != pool {
		return nil
	}
	patch := client.MergeFromWithOptions(n.DeepCopy(), client.MergeFromWithOptimisticLock{})
	delete(n.Labels, benchv1.PoolLabel)
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == benchv1.PoolLabel && t.Value == pool })
	return r.Patch(ctx, n, patch)
}

// releaseExcept removes the pool's label and taint from every node that has
// them, but the kept ones.
func (r *Reconciler) releaseExcept(ctx context.Context, pool string, keep map[string]bool) error {
	var labelled corev1.NodeList
	if err := r.List(ctx, &labelled, client.MatchingLabels{benchv1.PoolLabel: pool}); err != nil {
		return err
	}
	for i := range labelled.Items {
		if n := &labelled.Items[i]; !keep[n.Name] {
			if err := r.releaseNode(ctx, n, pool); err != nil {
				return err
			}
		}
	}
	return nil
}
