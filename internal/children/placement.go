package children

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Place keeps a pod on the benchmark's nodes: the pool's label and taint, or
// the spec's node selector; and the spec's tolerations.
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
