package integration

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// poolNodes adds two nodes of a pool (label and NoSchedule taint), a node
// outside it, a pool node with a taint the tuner does not tolerate, and a
// control-plane node that carries the pool's label.
func (e *tuningEnv) poolNodes(t *testing.T, pool string) (in []string, out []string) {
	t.Helper()
	taint := corev1.Taint{Key: benchv1.PoolLabel, Value: pool, Effect: corev1.TaintEffectNoSchedule}
	labels := map[string]string{benchv1.PoolLabel: pool}
	for i := 1; i <= 2; i++ {
		name := fmt.Sprintf("%s-%d", pool, i)
		e.nodes.addNode(t, name, labels, []corev1.Taint{taint}, false)
		in = append(in, name)
	}
	e.nodes.addNode(t, pool+"-other", map[string]string{"benchwright.io/test": pool}, nil, false)
	e.nodes.addNode(t, pool+"-gpu", labels, []corev1.Taint{taint, {Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}}, false)
	e.nodes.addNode(t, pool+"-cp", map[string]string{benchv1.PoolLabel: pool, "node-role.kubernetes.io/control-plane": ""}, []corev1.Taint{taint}, false)
	return in, []string{pool + "-other", pool + "-gpu", pool + "-cp"}
}

// optedIn are a node's labels with the admin's opt-in.
func optedIn(labels map[string]string) map[string]string {
	out := map[string]string{benchv1.BenchmarkNodeLabel: "true"}
	for k, v := range labels {
		out[k] = v
	}
	return out
}

func isTuned(p *benchv1.TuningProfile) bool {
	c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionTuned)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == p.Generation && p.Status.State == benchv1.TuningTuned
}

func tpCondition(t *testing.T, p *benchv1.TuningProfile, typ string) metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(p.Status.Conditions, typ)
	if c == nil {
		t.Fatalf("%s has no %s condition: %+v", p.Name, typ, p.Status.Conditions)
	}
	return *c
}

func TestTuningProfileTunesOnlyThePoolsNodes(t *testing.T) {
	e := newTuningEnv(t)
	pool := "tp-pool"
	in, out := e.poolNodes(t, pool)
	e.createProfile(t, "tp-latency", `
pool: tp-pool
preset: network-latency
sysctls:
- {name: net.core.busy_poll, value: "100"}
cpu: {governor: performance, smt: "off"}
`)
	p := waitProfile(t, "tp-latency", "Tuned", isTuned)

	// The DaemonSet: in the manager's namespace, on the pool's nodes only.
	var ds appsv1.DaemonSet
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: "tp-latency-tuner"}, &ds); err != nil {
		t.Fatal(err)
	}
	spec := ds.Spec.Template.Spec
	wantAffinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: benchv1.PoolLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{pool}},
			{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.NodeSelectorOpDoesNotExist},
			{Key: "node-role.kubernetes.io/master", Operator: corev1.NodeSelectorOpDoesNotExist},
		}}},
	}}}
	if d := cmp.Diff(wantAffinity, spec.Affinity); d != "" || len(spec.NodeSelector) != 0 {
		t.Errorf("nodeSelector %v; affinity (-want +got):\n%s", spec.NodeSelector, d)
	}
	if d := cmp.Diff([]corev1.Toleration{{Key: benchv1.PoolLabel, Operator: corev1.TolerationOpEqual, Value: pool, Effect: corev1.TaintEffectNoSchedule}}, spec.Tolerations); d != "" {
		t.Errorf("tolerations (-want +got):\n%s", d)
	}
	c := spec.Containers[0]
	if !ptr.Deref(c.SecurityContext.Privileged, false) || !spec.HostNetwork || spec.HostPID ||
		spec.ServiceAccountName != "benchwright-tuner" || ptr.Deref(spec.AutomountServiceAccountToken, true) {
		t.Errorf("tuner pod spec: privileged %v hostNetwork %v hostPID %v serviceAccount %q automount %v",
			c.SecurityContext.Privileged, spec.HostNetwork, spec.HostPID, spec.ServiceAccountName, spec.AutomountServiceAccountToken)
	}
	if ptr.Deref(spec.TerminationGracePeriodSeconds, 0) < 60 {
		t.Errorf("grace period %v leaves no time to restore", spec.TerminationGracePeriodSeconds)
	}
	var podNodes []string
	for n := range e.tunerPods(t) {
		podNodes = append(podNodes, n)
	}
	sort.Strings(podNodes)
	if d := cmp.Diff(in, podNodes); d != "" {
		t.Errorf("tuner pods on (-want +got):\n%s", d)
	}

	// Status: requested values with their sources, every node tuned.
	sources := map[string]string{}
	for _, r := range p.Status.Requested {
		sources[r.Name+"="+r.Value] = r.Source
	}
	for setting, source := range map[string]string{
		"net.core.busy_poll=100":                "spec",
		"cpu.smt=off":                           "spec",
		"net.core.busy_read=50":                 "preset network-latency (tuned network-latency/tuned.conf)",
		"vm.swappiness=10":                      "preset network-latency (tuned latency-performance/tuned.conf, included by network-latency)",
		"net.ipv4.tcp_rmem=4096 87380 16777216": "preset network-latency (seed 003 tcp_mem advice, values of GoogleCloudPlatform/hpc-tools mpi-tuning.sh --tcpmem)",
		"transparent_hugepage=never":            "preset network-latency (tuned network-latency/tuned.conf)",
	} {
		if got, ok := sources[setting]; !ok || got != source {
			t.Errorf("requested %s: source %q (present %v), want %q", setting, got, ok, source)
		}
	}
	if p.Status.DesiredNodes != 2 || p.Status.TunedNodes != 2 || len(p.Status.Nodes) != 2 {
		t.Errorf("desired %d tuned %d nodes %+v", p.Status.DesiredNodes, p.Status.TunedNodes, p.Status.Nodes)
	}
	for _, n := range p.Status.Nodes {
		if !n.Tuned || n.LastUpdateTime == nil || len(n.Mismatches) > 0 {
			t.Errorf("node status: %+v", n)
		}
	}
	for _, n := range in {
		for rel, want := range map[string]string{
			"proc/sys/net/core/busy_poll":                          "100",
			"proc/sys/net/ipv4/tcp_rmem":                           "4096 87380 16777216",
			"sys/devices/system/cpu/smt/control":                   "off",
			"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": "performance",
		} {
			if got := e.nodes.value(t, n, rel); got != want {
				t.Errorf("node %s: %s = %q, want %q", n, rel, got, want)
			}
		}
	}
	for _, n := range out {
		e.nodes.untouched(t, n)
	}

	t.Run("a spec change rolls the pods: the old ones restore, the new ones apply", func(t *testing.T) {
		before := e.tunerPods(t)
		p := waitProfile(t, "tp-latency", "fetched", func(*benchv1.TuningProfile) bool { return true })
		p.Spec.Sysctls[0].Value = "75"
		if err := k8sClient.Update(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		waitProfile(t, "tp-latency", "Tuned at generation 2", func(p *benchv1.TuningProfile) bool { return p.Generation == 2 && isTuned(p) })
		after := e.tunerPods(t)
		for _, n := range in {
			if before[n].Name == after[n].Name {
				t.Errorf("node %s kept pod %s", n, after[n].Name)
			}
			if got := e.nodes.value(t, n, "proc/sys/net/core/busy_poll"); got != "75" {
				t.Errorf("node %s: busy_poll = %q", n, got)
			}
			// The new pod found the node restored: its originals are the true ones.
			log, err := e.nodes.ReadLog(context.Background(), e.ns, after[n].Name, "tuner")
			if err != nil || !strings.Contains(string(log), `"name":"net.core.busy_poll","requested":"75","observed":"75","original":"0"`) {
				t.Errorf("node %s: the new tuner's report: %s (%v)", n, log, err)
			}
		}
	})
}

func TestTuningProfileValueMismatch(t *testing.T) {
	e := newTuningEnv(t)
	sel := optedIn(map[string]string{"benchwright.io/test": "tp-mismatch"})
	e.nodes.addNode(t, "tp-mismatch-good", sel, nil, false)
	e.nodes.addNode(t, "tp-mismatch-bad", sel, nil, true)
	e.createProfile(t, "tp-mismatch", `
nodeSelector: {benchwright.io/benchmark-node: "true", benchwright.io/test: tp-mismatch}
sysctls:
- {name: vm.swappiness, value: "10"}
- {name: net.core.busy_poll, value: "50"}
`)
	// Degraded comes with the bad node's first report; the good node's tuner
	// may report later (its pod starts on its own): wait until both have.
	p := waitProfile(t, "tp-mismatch", "Degraded, with a report from each node", func(p *benchv1.TuningProfile) bool {
		reported := 0
		for _, n := range p.Status.Nodes {
			if n.Tuned || len(n.Mismatches) > 0 {
				reported++
			}
		}
		return meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.TuningConditionDegraded) && reported == 2
	})
	deg, tuned := tpCondition(t, p, benchv1.TuningConditionDegraded), tpCondition(t, p, benchv1.TuningConditionTuned)
	if p.Status.State != benchv1.TuningDegraded {
		t.Errorf("state %q, want Degraded", p.Status.State)
	}
	if deg.Reason != benchv1.ReasonMismatch || !strings.Contains(deg.Message, "vm.swappiness") || !strings.Contains(deg.Message, "tp-mismatch-bad") {
		t.Errorf("Degraded: %+v", deg)
	}
	if tuned.Status != metav1.ConditionFalse || tuned.Reason != benchv1.ReasonMismatch {
		t.Errorf("Tuned: %+v", tuned)
	}
	for _, n := range p.Status.Nodes {
		switch n.Node {
		case "tp-mismatch-good":
			if !n.Tuned {
				t.Errorf("good node: %+v", n)
			}
		case "tp-mismatch-bad":
			want := []benchv1.SettingMismatch{{Name: "vm.swappiness", Requested: "10", Observed: ""}}
			if d := cmp.Diff(want, n.Mismatches); d != "" || n.Tuned {
				t.Errorf("bad node mismatches (-want +got):\n%s", d)
			}
		}
	}
	if p.Status.TunedNodes != 1 || p.Status.DesiredNodes != 2 {
		t.Errorf("tuned %d of %d", p.Status.TunedNodes, p.Status.DesiredNodes)
	}
}

// A key the API accepts (vm.*) but the tuner keeps from nodes: vm.drop_caches
// is a write-only action with no value to restore. A key that would take
// the node down (vm.panic_on_oom) the API server refuses unless an admin
// allows unlisted sysctls; with that, the tuner applies it.
func TestTuningProfileRefusedKey(t *testing.T) {
	e := newTuningEnv(t)
	ctx := context.Background()
	e.nodes.addNode(t, "tp-refused-1", optedIn(map[string]string{"benchwright.io/test": "tp-refused"}), nil, false)
	// An action is refused on the node even with the admin's opt-in (the
	// API refuses it without).
	e.createProfile(t, "tp-refused", `
nodeSelector: {benchwright.io/benchmark-node: "true", benchwright.io/test: tp-refused}
allowUnlistedSysctls: true
sysctls:
- {name: vm.drop_caches, value: "3"}
- {name: vm.swappiness, value: "10"}
`)
	p := waitProfile(t, "tp-refused", "Degraded", func(p *benchv1.TuningProfile) bool {
		return meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.TuningConditionDegraded)
	})
	deg := tpCondition(t, p, benchv1.TuningConditionDegraded)
	if deg.Reason != benchv1.ReasonRefusedKey || !strings.Contains(deg.Message, "vm.drop_caches") || !strings.Contains(deg.Message, "no value to restore") {
		t.Errorf("Degraded: %+v", deg)
	}
	if got := e.nodes.value(t, "tp-refused-1", "proc/sys/vm/swappiness"); got != "10" {
		t.Errorf("allowed vm.swappiness = %q", got)
	}

	// The API server refuses vm.panic_on_oom without the admin's opt-in...
	p.Spec.Sysctls = []benchv1.Sysctl{{Name: "vm.panic_on_oom", Value: "1"}, {Name: "vm.swappiness", Value: "10"}}
	p.Spec.AllowUnlistedSysctls = false
	err := k8sClient.Update(ctx, p)
	if err == nil || !strings.Contains(err.Error(), "sysctls off the tuner's allow-list") {
		t.Fatalf("vm.panic_on_oom without allowUnlistedSysctls: %v", err)
	}
	// ...and the tuner applies it with.
	p.Spec.AllowUnlistedSysctls = true
	if err := k8sClient.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	waitProfile(t, "tp-refused", "Tuned after opting in", isTuned)
	if got := e.nodes.value(t, "tp-refused-1", "proc/sys/vm/panic_on_oom"); got != "1" {
		t.Errorf("vm.panic_on_oom with allowUnlistedSysctls = %q", got)
	}
}

// A profile without a pool tunes only the nodes an admin opted in, and
// never a control-plane node, even one that is opted in.
func TestTuningProfileNodeSelectorTunesOnlyOptedInNodes(t *testing.T) {
	e := newTuningEnv(t)
	sel := map[string]string{"benchwright.io/test": "tp-optin"}
	e.nodes.addNode(t, "tp-optin-yes", optedIn(sel), nil, false)
	e.nodes.addNode(t, "tp-optin-no", sel, nil, false)
	cp := optedIn(sel)
	cp["node-role.kubernetes.io/control-plane"] = ""
	e.nodes.addNode(t, "tp-optin-cp", cp, nil, false)
	e.createProfile(t, "tp-optin", `
nodeSelector: {benchwright.io/benchmark-node: "true", benchwright.io/test: tp-optin}
sysctls: [{name: vm.swappiness, value: "10"}]
`)
	p := waitProfile(t, "tp-optin", "Tuned", isTuned)
	if p.Status.DesiredNodes != 1 || len(p.Status.Nodes) != 1 || p.Status.Nodes[0].Node != "tp-optin-yes" {
		t.Errorf("desired %d, nodes %+v; want tp-optin-yes alone", p.Status.DesiredNodes, p.Status.Nodes)
	}
	if pods := e.tunerPods(t); len(pods) != 1 || pods["tp-optin-yes"].Name == "" {
		t.Errorf("tuner pods on %v, want tp-optin-yes alone", slices.Collect(maps.Keys(pods)))
	}
	e.nodes.untouched(t, "tp-optin-no")
	e.nodes.untouched(t, "tp-optin-cp")
}

// The finalizer goes only when every node confirmed its restore: a node whose
// value does not come back holds the profile until it does, and a node that
// does not answer until it is deleted (then there is nothing to restore).
func TestTuningProfileFinalizerWaitsForEveryNodesRestore(t *testing.T) {
	e := newTuningEnv(t)
	in, out := e.poolNodes(t, "tp-del")
	p := e.createProfile(t, "tp-del", `
pool: tp-del
preset: hpc-compute
sysctls: [{name: vm.swappiness, value: "10"}]
cpu: {smt: "off"}
`)
	waitProfile(t, "tp-del", "Tuned", isTuned)
	if got := e.nodes.value(t, in[0], "sys/kernel/mm/transparent_hugepage/enabled"); got != "always" {
		t.Fatalf("THP = %q before deletion", got)
	}
	const swappiness = "proc/sys/vm/swappiness"
	e.nodes.breakFile(t, in[0], swappiness) // its original will not go back
	e.nodes.setDown(in[1], true)            // its kubelet stops

	if err := k8sClient.Delete(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	notConfirmed := func(p *benchv1.TuningProfile) string {
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionTuned)
		if c == nil || c.Reason != benchv1.ReasonRestoring || p.Status.State != benchv1.TuningRestoring {
			return ""
		}
		return c.Message
	}
	held := waitProfile(t, "tp-del", "held by both nodes", func(p *benchv1.TuningProfile) bool {
		msg := notConfirmed(p)
		return strings.Contains(msg, "0/2 node(s) confirmed restored") &&
			strings.Contains(msg, in[0]+": 1 original value(s) could not be restored") && strings.Contains(msg, in[1]+": ")
	})
	if !controllerutil.ContainsFinalizer(held, "benchwright.io/restore-nodes") {
		t.Fatalf("profile without its finalizer while no node confirmed its restore: %+v", held.ObjectMeta)
	}
	if c := tpCondition(t, held, benchv1.TuningConditionDegraded); c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonRestoreFailed ||
		!strings.Contains(c.Message, in[0]) || !strings.Contains(c.Message, "remove the finalizer") {
		t.Errorf("Degraded: %+v", c)
	}
	if got := e.nodes.value(t, in[0], "sys/devices/system/cpu/smt/control"); got != "on" {
		t.Errorf("%s: smt %q, want the other originals back", in[0], got)
	}
	var cm corev1.ConfigMap
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: "tp-del-tuner"}, &cm); err != nil ||
		!strings.Contains(cm.Data["settings.json"], `"restore": true`) {
		t.Errorf("the tuner's settings while restoring: %v %q", err, cm.Data["settings.json"])
	}

	e.nodes.mendFile(t, in[0], swappiness, "10\n") // an admin mends the node
	waitProfile(t, "tp-del", in[0]+" confirmed", func(p *benchv1.TuningProfile) bool {
		msg := notConfirmed(p)
		return strings.Contains(msg, "1/2 node(s) confirmed restored") && !strings.Contains(msg, in[0]+":")
	})
	e.nodes.untouched(t, in[0])

	// The silent node is gone for good: nothing to restore there.
	if err := k8sClient.Delete(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: in[1]}}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, p, 30*time.Second)
	waitGone(t, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "tp-del-tuner"}}, 10*time.Second)
	waitGone(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "tp-del-tuner"}}, 10*time.Second)
	for _, n := range out {
		e.nodes.untouched(t, n)
	}
}

func TestTuningProfileWithoutNodes(t *testing.T) {
	e := newTuningEnv(t)
	e.createProfile(t, "tp-nonodes", `
nodeSelector: {benchwright.io/benchmark-node: "true", benchwright.io/test: nobody}
transparentHugepages: never
`)
	p := waitProfile(t, "tp-nonodes", "NoNodes", func(p *benchv1.TuningProfile) bool {
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionTuned)
		return c != nil && c.Reason == benchv1.ReasonNoNodes
	})
	if c := tpCondition(t, p, benchv1.TuningConditionTuned); c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "benchwright.io/test=nobody") {
		t.Errorf("Tuned: %+v", c)
	}
	if p.Status.DesiredNodes != 0 || len(p.Status.Requested) != 1 {
		t.Errorf("status: %+v", p.Status)
	}
}
