package tuningprofile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/tuning"
)

var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func newProfile(mods ...func(*benchv1.TuningProfile)) *benchv1.TuningProfile {
	p := &benchv1.TuningProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "mpi-latency", UID: "uid-1", Generation: 3},
		Spec:       benchv1.TuningProfileSpec{Pool: "c2", Preset: benchv1.PresetNetworkLatency},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

var params = tunerParams{namespace: "benchwright-system", image: "registry.example/tuner:1", serviceAccount: "benchwright-tuner", settingsHash: "abc"}

func TestConstructTunerDaemonSetOnAPool(t *testing.T) {
	labels := map[string]string{
		"benchwright.io/kind": "TuningProfile", "benchwright.io/tuning-profile": "mpi-latency",
		"app.kubernetes.io/name": "benchwright", "app.kubernetes.io/component": "tuner",
	}
	annotations := map[string]string{"benchwright.io/tuning-profile": "mpi-latency", "benchwright.io/tuning-profile-uid": "uid-1"}
	want := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "mpi-latency-tuner", Namespace: "benchwright-system", Labels: labels, Annotations: annotations},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"benchwright.io/kind": "TuningProfile", "benchwright.io/tuning-profile": "mpi-latency"}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromString("100%"))},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
					"benchwright.io/tuning-profile": "mpi-latency", "benchwright.io/tuning-profile-uid": "uid-1",
					"benchwright.io/generation": "3", "benchwright.io/settings-hash": "abc",
				}},
				Spec: corev1.PodSpec{
					Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
						NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
							{Key: "benchwright.io/pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"c2"}},
							{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.NodeSelectorOpDoesNotExist},
							{Key: "node-role.kubernetes.io/master", Operator: corev1.NodeSelectorOpDoesNotExist},
						}}},
					}}},
					Tolerations: []corev1.Toleration{{
						Key: "benchwright.io/pool", Operator: corev1.TolerationOpEqual, Value: "c2", Effect: corev1.TaintEffectNoSchedule,
					}},
					ServiceAccountName:            "benchwright-tuner",
					AutomountServiceAccountToken:  ptr.To(false),
					EnableServiceLinks:            ptr.To(false),
					HostNetwork:                   true,
					DNSPolicy:                     corev1.DNSClusterFirstWithHostNet,
					TerminationGracePeriodSeconds: ptr.To[int64](120),
					Containers: []corev1.Container{{
						Name: "tuner", Image: "registry.example/tuner:1", ImagePullPolicy: corev1.PullIfNotPresent,
						Args: []string{
							"--settings=/etc/benchwright/tuning/settings.json", "--state-dir=/var/lib/benchwright/tuning/$(NODE_NAME)",
							"--profile=mpi-latency", "--generation=3", "--node=$(NODE_NAME)",
						},
						Env: []corev1.EnvVar{
							{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
							{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
						},
						SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true), RunAsUser: ptr.To[int64](0), ReadOnlyRootFilesystem: ptr.To(true)},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
						},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "settings", MountPath: "/etc/benchwright/tuning", ReadOnly: true},
							{Name: "state", MountPath: "/var/lib/benchwright/tuning"},
						},
					}},
					Volumes: []corev1.Volume{
						{Name: "settings", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "mpi-latency-tuner"},
						}}},
						{Name: "state", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
							Path: "/var/lib/benchwright/tuning", Type: ptr.To(corev1.HostPathDirectoryOrCreate),
						}}},
					},
				},
			},
		},
	}
	got := constructTunerDaemonSet(newProfile(), params)
	if d := cmp.Diff(want, got, quantities); d != "" {
		t.Errorf("DaemonSet (-want +got):\n%s", d)
	}
	if got.Spec.Template.Spec.HostPID {
		t.Error("the tuner must not see the host's processes")
	}
}

// A profile tunes a pool's nodes or the nodes an admin opted in, never a
// control-plane node: the DaemonSet's node affinity says so, whatever the
// spec's selector (a profile stored before the API's rules included).
func TestConstructTunerDaemonSetPlacement(t *testing.T) {
	node := func(name string, labels ...string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
		for i := 0; i < len(labels); i += 2 {
			n.Labels[labels[i]] = labels[i+1]
		}
		return n
	}
	const optIn, cp = "benchwright.io/benchmark-node", "node-role.kubernetes.io/control-plane"
	nodes := []*corev1.Node{
		node("pool-node", "benchwright.io/pool", "c2"),
		node("pool-cp", "benchwright.io/pool", "c2", cp, ""),
		node("opted-in", optIn, "true", "hpc", "yes"),
		node("opted-in-cp", optIn, "true", "hpc", "yes", cp, ""),
		node("opted-in-master", optIn, "true", "hpc", "yes", "node-role.kubernetes.io/master", ""),
		node("not-opted-in", "hpc", "yes"),
		node("opted-out", optIn, "false", "hpc", "yes"),
	}
	for _, tc := range []struct {
		name        string
		pool        benchv1.PoolName
		selector    map[string]string
		want        []string
		tolerations int
	}{
		{"pool", "c2", nil, []string{"pool-node"}, 1},
		{"opted-in nodes", "", map[string]string{optIn: "true", "hpc": "yes"}, []string{"opted-in"}, 0},
		{"a bare selector still needs the opt-in", "", map[string]string{"hpc": "yes"}, []string{"opted-in"}, 0},
		{"a selector that asks for the control plane", "", map[string]string{"hpc": "yes", cp: ""}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProfile(func(p *benchv1.TuningProfile) { p.Spec.Pool, p.Spec.NodeSelector = tc.pool, tc.selector })
			spec := constructTunerDaemonSet(p, params).Spec.Template.Spec
			if spec.NodeSelector != nil || len(spec.Tolerations) != tc.tolerations {
				t.Errorf("nodeSelector %v, tolerations %+v", spec.NodeSelector, spec.Tolerations)
			}
			terms := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			if len(terms) != 1 {
				t.Fatalf("node affinity terms %+v, want one (terms are ORed)", terms)
			}
			sel, err := nodeLabelSelector(terms[0].MatchExpressions)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range nodes {
				if sel.Matches(labels.Set(n.Labels)) {
					got = append(got, n.Name)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("nodes the tuner runs on (-want +got):\n%s", d)
			}
		})
	}
}

func TestLongProfileNamesGiveValidChildren(t *testing.T) {
	p := newProfile(func(p *benchv1.TuningProfile) { p.Name = strings.Repeat("a.b-", 60) + "z" })
	ds := constructTunerDaemonSet(p, params)
	if errs := validation.IsDNS1123Subdomain(ds.Name); len(errs) > 0 || len(ds.Name) > 52 {
		t.Errorf("DaemonSet name %q: %v", ds.Name, errs)
	}
	for k, v := range ds.Spec.Template.Labels {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("label %s=%q: %v", k, v, errs)
		}
	}
	if ds.Spec.Template.Annotations[profileAnnotation] != p.Name {
		t.Error("the full name is lost")
	}
}

func TestSettingsJSONIsWhatTheTunerReads(t *testing.T) {
	p := newProfile(func(p *benchv1.TuningProfile) { p.Spec.AllowUnlistedSysctls = true })
	settings, err := tuning.Expand(&p.Spec)
	if err != nil {
		t.Fatal(err)
	}
	data := settingsJSON(p, settings)
	var cfg tuning.Config
	if err := json.Unmarshal([]byte(data), &cfg); err != nil {
		t.Fatal(err)
	}
	want := tuning.Config{Profile: "mpi-latency", Generation: 3, AllowUnlistedSysctls: true, Settings: settings}
	if d := cmp.Diff(want, cfg); d != "" {
		t.Errorf("settings.json (-want +got):\n%s", d)
	}
	cm := constructConfigMap(p, "ns", data)
	if cm.Data["settings.json"] != data || cm.Name != "mpi-latency-tuner" {
		t.Errorf("ConfigMap: %+v", cm)
	}
	// Another value, another hash: the pods roll.
	p.Spec.Sysctls = []benchv1.Sysctl{{Name: "net.core.busy_poll", Value: "100"}}
	settings2, _ := tuning.Expand(&p.Spec)
	if hash(settingsJSON(p, settings2)) == hash(data) {
		t.Error("a changed value keeps the settings hash")
	}
}
