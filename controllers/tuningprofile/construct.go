package tuningprofile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/tuning"
)

const (
	kind = "TuningProfile"

	// finalizer holds a profile until every node's tuner confirmed the
	// restore: node settings are nothing garbage collection can undo, and the
	// children live in another scope than the profile.
	finalizer = "benchwright.io/restore-nodes"
	// fieldOwner applies the children (server-side apply).
	fieldOwner = "benchwright-tuningprofile"

	// Annotations on the children: the profile by full name (labels are cut
	// at 63 characters) and by UID (a child of a deleted namesake is not ours).
	profileAnnotation    = "benchwright.io/tuning-profile"
	uidAnnotation        = "benchwright.io/tuning-profile-uid"
	generationAnnotation = "benchwright.io/generation"
	// settingsHashAnnotation on the pod template rolls the pods when the
	// settings change: the old ones restore, the new ones apply.
	settingsHashAnnotation = "benchwright.io/settings-hash"
	// appliedHashAnnotation lets a reconcile skip an apply that would change nothing.
	appliedHashAnnotation = "benchwright.io/applied-hash"

	container   = "tuner"
	settingsKey = "settings.json"
	settingsDir = "/etc/benchwright/tuning"
	// stateDir is a hostPath: the originals outlive the pod. Each node keeps
	// its originals in a directory of its own name, so nodes that share a
	// filesystem (several kubelets on one machine) never take each other's.
	stateDir = "/var/lib/benchwright/tuning"
	// gracePeriod leaves the tuner time to restore every value (SMT on
	// brings CPUs back online, which takes seconds on large machines).
	gracePeriod = 120
)

// childName names the DaemonSet and the ConfigMap of a profile.
func childName(p *benchv1.TuningProfile) string { return children.Name(p.Name, "-tuner") }

// childLabels select a profile's children; KindLabel also keeps them in the
// manager's label-filtered cache.
func childLabels(p *benchv1.TuningProfile) map[string]string {
	return map[string]string{
		benchv1.KindLabel:          kind,
		benchv1.TuningProfileLabel: children.LabelValue(p.Name),
	}
}

func childMeta(p *benchv1.TuningProfile, namespace string) metav1.ObjectMeta {
	labels := childLabels(p)
	labels["app.kubernetes.io/name"] = "benchwright"
	labels["app.kubernetes.io/component"] = "tuner"
	return metav1.ObjectMeta{
		Name: childName(p), Namespace: namespace, Labels: labels,
		Annotations: map[string]string{profileAnnotation: p.Name, uidAnnotation: string(p.UID)},
	}
}

// settingsJSON is the tuner's settings.json for a profile's expanded settings.
func settingsJSON(p *benchv1.TuningProfile, settings []tuning.Setting) string {
	b, err := json.MarshalIndent(tuning.Config{
		Profile: p.Name, Generation: p.Generation,
		AllowUnlistedSysctls: p.Spec.AllowUnlistedSysctls, Settings: settings,
	}, "", "  ")
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return string(b)
}

// restoreJSON is the settings.json of a deleted profile: restore, apply nothing.
func restoreJSON(p *benchv1.TuningProfile) string {
	b, err := json.MarshalIndent(tuning.Config{Profile: p.Name, Generation: p.Generation, Restore: true}, "", "  ")
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return string(b)
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// constructConfigMap is the settings.json the tuner pods read.
func constructConfigMap(p *benchv1.TuningProfile, namespace, settings string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: childMeta(p, namespace),
		Data:       map[string]string{settingsKey: settings},
	}
}

// tunerParams are the Reconciler's settings a DaemonSet needs.
type tunerParams struct {
	namespace, image, serviceAccount string
	// settingsHash is the hash of settings.json.
	settingsHash string
}

// constructTunerDaemonSet runs the tuner on the profile's nodes and nowhere
// else: privileged (it writes /proc/sys and /sys), in the host's network
// namespace (net.* sysctls are per namespace, and some exist only in the
// host's), not in its PID namespace, with no API credentials.
func constructTunerDaemonSet(p *benchv1.TuningProfile, o tunerParams) *appsv1.DaemonSet {
	meta := childMeta(p, o.namespace)
	podMeta := metav1.ObjectMeta{Labels: meta.Labels, Annotations: map[string]string{
		profileAnnotation: p.Name, uidAnnotation: string(p.UID),
		generationAnnotation: strconv.FormatInt(p.Generation, 10), settingsHashAnnotation: o.settingsHash,
	}}
	spec := corev1.PodSpec{
		ServiceAccountName:            o.serviceAccount,
		AutomountServiceAccountToken:  ptr.To(false),
		EnableServiceLinks:            ptr.To(false),
		HostNetwork:                   true,
		DNSPolicy:                     corev1.DNSClusterFirstWithHostNet,
		TerminationGracePeriodSeconds: ptr.To[int64](gracePeriod),
		Containers:                    []corev1.Container{tunerContainer(p, o.image)},
		Volumes: []corev1.Volume{
			{Name: "settings", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: meta.Name},
			}}},
			{Name: "state", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: stateDir, Type: ptr.To(corev1.HostPathDirectoryOrCreate),
			}}},
		},
	}
	reqs, tolerations := placement(p)
	spec.Affinity, spec.Tolerations = nodeAffinity(reqs), tolerations
	return &appsv1.DaemonSet{
		ObjectMeta: meta,
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: childLabels(p)},
			Template: corev1.PodTemplateSpec{ObjectMeta: podMeta, Spec: spec},
			// Every node at once: each old pod restores before its successor
			// applies, and benchmarks wait for Tuned anyway.
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromString("100%"))},
			},
		},
	}
}

func tunerContainer(p *benchv1.TuningProfile, image string) corev1.Container {
	fromField := func(path string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}
	}
	return corev1.Container{
		Name: container, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Args: []string{
			"--settings=" + settingsDir + "/" + settingsKey, "--state-dir=" + stateDir + "/$(NODE_NAME)",
			"--profile=" + p.Name, "--generation=" + strconv.FormatInt(p.Generation, 10), "--node=$(NODE_NAME)",
		},
		Env: []corev1.EnvVar{
			{Name: "NODE_NAME", ValueFrom: fromField("spec.nodeName")},
			{Name: "POD_NAME", ValueFrom: fromField("metadata.name")},
		},
		SecurityContext: &corev1.SecurityContext{
			Privileged: ptr.To(true), RunAsUser: ptr.To[int64](0), ReadOnlyRootFilesystem: ptr.To(true),
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "settings", MountPath: settingsDir, ReadOnly: true},
			{Name: "state", MountPath: stateDir},
		},
	}
}

// placement is where a profile's tuner runs, as the required node affinity's
// terms, and what it tolerates: a pool's nodes (its label; its NoSchedule
// taint), or the nodes an admin opted in (benchwright.io/benchmark-node=true)
// that match the spec's node selector. Never a control-plane node, whatever
// the spec says (a profile stored before the API's rules included).
func placement(p *benchv1.TuningProfile) ([]corev1.NodeSelectorRequirement, []corev1.Toleration) {
	in := func(key, value string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}
	}
	var reqs []corev1.NodeSelectorRequirement
	var tolerations []corev1.Toleration
	if pool := string(p.Spec.Pool); pool != "" {
		reqs = append(reqs, in(benchv1.PoolLabel, pool))
		tolerations = []corev1.Toleration{{
			Key: benchv1.PoolLabel, Operator: corev1.TolerationOpEqual, Value: pool, Effect: corev1.TaintEffectNoSchedule,
		}}
	} else {
		reqs = append(reqs, in(benchv1.BenchmarkNodeLabel, "true"))
		for _, k := range slices.Sorted(maps.Keys(p.Spec.NodeSelector)) {
			if k != benchv1.BenchmarkNodeLabel {
				reqs = append(reqs, in(k, p.Spec.NodeSelector[k]))
			}
		}
	}
	for _, l := range benchv1.ControlPlaneLabels {
		reqs = append(reqs, corev1.NodeSelectorRequirement{Key: l, Operator: corev1.NodeSelectorOpDoesNotExist})
	}
	return reqs, tolerations
}

// nodeAffinity requires every one of reqs.
func nodeAffinity(reqs []corev1.NodeSelectorRequirement) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}},
		},
	}}
}

// nodeLabelSelector is reqs as a label selector, to list the nodes they match.
func nodeLabelSelector(reqs []corev1.NodeSelectorRequirement) (labels.Selector, error) {
	ops := map[corev1.NodeSelectorOperator]selection.Operator{
		corev1.NodeSelectorOpIn: selection.In, corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	}
	sel := labels.NewSelector()
	for _, r := range reqs {
		lr, err := labels.NewRequirement(r.Key, ops[r.Operator], r.Values)
		if err != nil {
			return nil, fmt.Errorf("node selector %s: %w", r.Key, err)
		}
		sel = sel.Add(*lr)
	}
	return sel, nil
}
