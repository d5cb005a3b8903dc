package children

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// NodeLostSeconds is how long a benchmark pod stays bound to a node the
// cluster sees as unreachable or not ready before it is evicted (Kubernetes
// gives pods 300 s). A run on a node that stopped answering is no measurement:
// its repetition is retried (spec.maxRetries) or the benchmark fails about
// 30 s after the node is marked, not five minutes later.
const NodeLostSeconds = 30

// Place keeps a pod on the benchmark's nodes: the pool's label and taint, or
// the spec's node selector; the spec's tolerations; and NodeLostSeconds for
// the node-lost taints the spec does not tolerate itself.
func Place(spec *corev1.PodSpec, p benchv1.Placement) {
	if pool := string(p.Pool); pool != "" {
		spec.NodeSelector = map[string]string{benchv1.PoolLabel: pool}
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{
			Key: benchv1.PoolLabel, Operator: corev1.TolerationOpEqual, Value: pool, Effect: corev1.TaintEffectNoSchedule,
		})
	} else {
		spec.NodeSelector = make(map[string]string, len(p.NodeSelector))
		for k, v := range p.NodeSelector {
			spec.NodeSelector[k] = v
		}
	}
	spec.Tolerations = append(spec.Tolerations, p.Tolerations...)
	for _, t := range NodeLostTolerations() {
		if !tolerates(p.Tolerations, t.Key) {
			spec.Tolerations = append(spec.Tolerations, t)
		}
	}
}

// NodeLostTolerations keep a benchmark pod NodeLostSeconds on a node that is
// unreachable or not ready.
func NodeLostTolerations() []corev1.Toleration {
	var out []corev1.Toleration
	for _, taint := range []string{corev1.TaintNodeUnreachable, corev1.TaintNodeNotReady} {
		out = append(out, corev1.Toleration{
			Key: taint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute,
			TolerationSeconds: ptr.To[int64](NodeLostSeconds),
		})
	}
	return out
}

// tolerates tells whether one of ts names the taint key.
func tolerates(ts []corev1.Toleration, key string) bool {
	for _, t := range ts {
		if t.Key == key {
			return true
		}
	}
	return false
}

// OneSlotPerNode keeps the pods that carry peers' labels (one attempt's
// node slots) on distinct nodes.
func OneSlotPerNode(spec *corev1.PodSpec, peers map[string]string) {
	spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: peers},
			TopologyKey:   corev1.LabelHostname,
		}},
	}}
}
