package tuningprofile

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/tuning"
)

var reported = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func good(node string) nodeState {
	return nodeState{node: node, report: &tuning.Report{Node: node, Phase: tuning.PhaseApplied, Tuned: true, Time: reported,
		Settings: []tuning.SettingReport{
			{Name: "net.core.busy_poll", Requested: "50", Observed: "50", Original: "0", OK: true},
			{Name: tuning.Governor, Requested: "performance", OK: true, Skipped: true, Error: "cpu.governor: not present on this node"},
		}}}
}

func mismatched(node string) nodeState {
	s := good(node)
	s.report.Tuned = false
	s.report.Settings = append(s.report.Settings, tuning.SettingReport{Name: "vm.swappiness", Requested: "10", Observed: "", Original: ""})
	return s
}

func refusedOn(node string) nodeState {
	s := good(node)
	s.report.Tuned = false
	s.report.Refused = []tuning.Refusal{{Name: "kernel.panic", Reason: "not on the tuner's allow-list"}}
	return s
}

func cond(t *testing.T, p *benchv1.TuningProfile, typ string) metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(p.Status.Conditions, typ)
	if c == nil {
		t.Fatalf("no %s condition: %+v", typ, p.Status.Conditions)
	}
	return *c
}

func TestSetStatus(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		states                 []nodeState
		tuned, degraded        metav1.ConditionStatus
		tunedReason, degReason string
		inMessage              string
		tunedNodes             int32
	}{
		{"all tuned", []nodeState{good("b"), good("a")}, metav1.ConditionTrue, metav1.ConditionFalse, benchv1.ReasonAllApplied, benchv1.ReasonAllApplied, "2/2 node(s) tuned", 2},
		{"no nodes", nil, metav1.ConditionFalse, metav1.ConditionFalse, benchv1.ReasonNoNodes, benchv1.ReasonNoNodes, "benchwright.io/pool=c2", 0},
		{"a mismatch", []nodeState{good("a"), mismatched("b")}, metav1.ConditionFalse, metav1.ConditionTrue, benchv1.ReasonMismatch, benchv1.ReasonMismatch, `node b: vm.swappiness reads "", requested "10"`, 1},
		{"a refused key", []nodeState{refusedOn("a"), mismatched("b")}, metav1.ConditionFalse, metav1.ConditionTrue, benchv1.ReasonRefusedKey, benchv1.ReasonRefusedKey, "node a refused kernel.panic (not on the tuner's allow-list)", 0},
		{"starting", []nodeState{good("a"), {node: "b", waiting: "no tuner pod on the node yet"}}, metav1.ConditionFalse, metav1.ConditionFalse, benchv1.ReasonApplying, benchv1.ReasonApplying, "waiting for b: no tuner pod", 1},
		{"not running", []nodeState{{node: "a", waiting: "ImagePullBackOff", notRunning: true}, {node: "b", waiting: "starting"}}, metav1.ConditionFalse, metav1.ConditionFalse, benchv1.ReasonTunerNotRunning, benchv1.ReasonTunerNotRunning, "a: ImagePullBackOff", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProfile(func(p *benchv1.TuningProfile) { p.Spec.Pool = "c2" })
			setStatus(p, tc.states)
			tuned, deg := cond(t, p, benchv1.TuningConditionTuned), cond(t, p, benchv1.TuningConditionDegraded)
			if tuned.Status != tc.tuned || tuned.Reason != tc.tunedReason || deg.Status != tc.degraded || deg.Reason != tc.degReason {
				t.Errorf("Tuned %s/%s, Degraded %s/%s", tuned.Status, tuned.Reason, deg.Status, deg.Reason)
			}
			if !strings.Contains(tuned.Message+deg.Message, tc.inMessage) {
				t.Errorf("messages %q / %q do not say %q", tuned.Message, deg.Message, tc.inMessage)
			}
			if p.Status.TunedNodes != tc.tunedNodes || p.Status.DesiredNodes != int32(len(tc.states)) {
				t.Errorf("tuned %d desired %d", p.Status.TunedNodes, p.Status.DesiredNodes)
			}
			if tuned.ObservedGeneration != 3 {
				t.Errorf("observedGeneration %d", tuned.ObservedGeneration)
			}
		})
	}
}

func TestNodeStatus(t *testing.T) {
	at := metav1.NewTime(reported)
	got := []benchv1.NodeTuningStatus{nodeStatus(good("a")), nodeStatus(mismatched("b")), nodeStatus(nodeState{node: "c", waiting: "tuner pod x is starting"})}
	want := []benchv1.NodeTuningStatus{
		{Node: "a", Tuned: true, LastUpdateTime: &at, Message: "skipped, not on this node (preset values): cpu.governor"},
		{Node: "b", LastUpdateTime: &at, Mismatches: []benchv1.SettingMismatch{{Name: "vm.swappiness", Requested: "10"}},
			Message: "skipped, not on this node (preset values): cpu.governor"},
		{Node: "c", Message: "tuner pod x is starting"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("node status (-want +got):\n%s", d)
	}
	long := nodeStatus(nodeState{node: "d", waiting: strings.Repeat("é", 2000)})
	if len(long.Message) > maxMessage {
		t.Errorf("message of %d bytes", len(long.Message))
	}
	// A governor that differs per CPU reads back as one value per CPU.
	var perCPU []string
	for i := range 512 {
		perCPU = append(perCPU, fmt.Sprintf("cpu%d=powersave", i))
	}
	wide := mismatched("e")
	wide.report.Settings = append(wide.report.Settings, tuning.SettingReport{Name: "cpu.governor", Requested: "performance", Observed: strings.Join(perCPU, " ")})
	ms := nodeStatus(wide).Mismatches
	if len(ms) != 2 {
		t.Fatalf("mismatches %+v, want vm.swappiness and cpu.governor", ms)
	}
	for _, m := range ms {
		if len(m.Requested) > maxValue || len(m.Observed) > maxValue {
			t.Errorf("mismatch %s: requested of %d bytes, observed of %d (the CRD allows %d)", m.Name, len(m.Requested), len(m.Observed), maxValue)
		}
	}
	if got := ms[1].Observed; !strings.HasPrefix(got, "cpu0=powersave cpu1=powersave") || !strings.HasSuffix(got, "...") {
		t.Errorf("cut observed value %.40q...%q", got, got[max(0, len(got)-20):])
	}
}

func TestTolerated(t *testing.T) {
	_, pool := placement(newProfile())
	poolTaint := corev1.Taint{Key: benchv1.PoolLabel, Value: "c2", Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name   string
		taints []corev1.Taint
		want   bool
	}{
		{"untainted", nil, true},
		{"the pool's taint", []corev1.Taint{poolTaint}, true},
		{"another pool's taint", []corev1.Taint{{Key: benchv1.PoolLabel, Value: "c3", Effect: corev1.TaintEffectNoSchedule}}, false},
		{"a GPU taint", []corev1.Taint{poolTaint, {Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}}, false},
		{"prefer-no-schedule", []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule}}, true},
		{"a condition taint", []corev1.Taint{{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule}}, true},
	} {
		if got := tolerated(tc.taints, pool); got != tc.want {
			t.Errorf("%s: tolerated = %v", tc.name, got)
		}
	}
}

func restoredOn(node string) nodeState {
	return nodeState{node: node, report: &tuning.Report{Node: node, Phase: tuning.PhaseRestored, Time: reported,
		Settings: []tuning.SettingReport{{Name: "vm.swappiness", Requested: "60", Observed: "60", Original: "60", OK: true}}}}
}

func restoreFailedOn(node string) nodeState {
	return nodeState{node: node, report: &tuning.Report{Node: node, Phase: tuning.PhaseError, Time: reported,
		Error:    "1 original value(s) could not be restored; they stay in /var/lib/benchwright/tuning/" + node + "/mpi-latency.json",
		Settings: []tuning.SettingReport{{Name: "vm.swappiness", Requested: "60", Observed: "10", Original: "60"}}}}
}

// A deleted profile lets go only when every node confirmed its restore; the
// conditions name the nodes that did not, and why.
func TestSetRestoreStatus(t *testing.T) {
	takenOver := restoredOn("b")
	takenOver.report.Error = "the originals were taken over by tuner x, which restores them"
	for _, tc := range []struct {
		name       string
		states     []nodeState
		stragglers []string
		confirmed  bool
		degReason  string
		inMessage  []string
	}{
		{"every node restored", []nodeState{restoredOn("a"), restoredOn("b")}, nil, true, "", nil},
		{"no nodes left", nil, nil, true, "", nil},
		{"a failed restore", []nodeState{restoredOn("a"), restoreFailedOn("b")}, nil, false, benchv1.ReasonRestoreFailed, []string{
			"1/2 node(s) confirmed restored", "b: 1 original value(s) could not be restored", `vm.swappiness reads "10", original "60"`, finalizer,
		}},
		{"a silent node", []nodeState{restoredOn("a"), {node: "b", waiting: "tuner pod x is starting"}}, nil, false, benchv1.ReasonRestoring, []string{
			"b: tuner pod x is starting", "delete its Node object",
		}},
		{"a restore someone else owns", []nodeState{restoredOn("a"), takenOver}, nil, false, benchv1.ReasonRestoreFailed, []string{"b: the originals were taken over"}},
		{"still applied", []nodeState{good("a")}, nil, false, benchv1.ReasonRestoreFailed, []string{`a: the tuner reports "applied", not restored`}},
		{"an earlier pod still ending", []nodeState{restoredOn("a")}, []string{"a: earlier tuner pod y is still ending"}, false, benchv1.ReasonRestoring, []string{
			"1/1 node(s) confirmed restored", "a: earlier tuner pod y is still ending",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProfile()
			if got := setRestoreStatus(p, tc.states, tc.stragglers); got != tc.confirmed {
				t.Fatalf("confirmed = %v, want %v; conditions %+v", got, tc.confirmed, p.Status.Conditions)
			}
			if p.Status.DesiredNodes != int32(len(tc.states)) || len(p.Status.Nodes) != len(tc.states) || p.Status.TunedNodes != 0 {
				t.Errorf("desired %d, tuned %d, nodes %+v", p.Status.DesiredNodes, p.Status.TunedNodes, p.Status.Nodes)
			}
			if tc.confirmed {
				return
			}
			tuned, deg := cond(t, p, benchv1.TuningConditionTuned), cond(t, p, benchv1.TuningConditionDegraded)
			if tuned.Status != metav1.ConditionFalse || tuned.Reason != benchv1.ReasonRestoring || deg.Reason != tc.degReason ||
				(deg.Status == metav1.ConditionTrue) != (tc.degReason == benchv1.ReasonRestoreFailed) {
				t.Errorf("Tuned %s/%s, Degraded %s/%s", tuned.Status, tuned.Reason, deg.Status, deg.Reason)
			}
			for _, want := range tc.inMessage {
				if !strings.Contains(tuned.Message+" | "+deg.Message, want) {
					t.Errorf("messages %q | %q do not say %q", tuned.Message, deg.Message, want)
				}
			}
		})
	}
}

// The tuner's firewall count shows per node; a count outside the CRD's
// bounds does not.
func TestNodeStatusFirewallRules(t *testing.T) {
	for _, c := range []struct {
		count *int
		want  *int32
	}{{nil, nil}, {ptr.To(0), ptr.To[int32](0)}, {ptr.To(42), ptr.To[int32](42)}, {ptr.To(-1), nil}, {ptr.To(maxFirewallRules + 1), nil}} {
		s := good("a")
		s.report.FirewallRules = c.count
		if got := nodeStatus(s).FirewallRules; !cmp.Equal(got, c.want) {
			t.Errorf("count %v: firewallRules %v, want %v", c.count, got, c.want)
		}
	}
}
