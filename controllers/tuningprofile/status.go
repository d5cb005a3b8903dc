package tuningprofile

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"k8s.io/utils/ptr"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/conditions"
	"github.com/benchwright/benchwright/internal/crdbounds"
	"github.com/benchwright/benchwright/internal/statusupdate"
	"github.com/benchwright/benchwright/internal/tuning"
)

// Bounds of the status, read from the CRD.
var (
	maxNodes      = crdbounds.MustMaxItems("TuningProfile", "status.nodes")
	maxMismatches = crdbounds.MustMaxItems("TuningProfile", "status.nodes[].mismatches")
	maxRequested  = crdbounds.MustMaxItems("TuningProfile", "status.requested")
	maxMessage    = crdbounds.MustMaxLength("TuningProfile", "status.nodes[].message")
	// maxValue bounds a mismatch's requested and observed value: a
	// per-CPU value ("cpu0=performance cpu1=powersave ...") grows with the
	// node's CPUs.
	maxValue = crdbounds.MustMaxLength("TuningProfile", "status.nodes[].mismatches[].requested")
)

// maxFirewallRules is status.nodes[].firewallRules' maximum in the CRD: a
// count above it is not shown.
const maxFirewallRules = 10_000_000

// setCondition sets a condition with its message bounded for `kubectl describe`.
func setCondition(p *benchv1.TuningProfile, typ string, status metav1.ConditionStatus, reason, message string) {
	conditions.Set(p, typ, status, reason, bound(message))
}

// requested is status.requested: every setting with its source.
func requested(settings []tuning.Setting) []benchv1.RequestedSetting {
	out := make([]benchv1.RequestedSetting, 0, len(settings))
	for _, s := range settings {
		out = append(out, benchv1.RequestedSetting{Name: s.Name, Value: s.Value, Source: s.Source})
	}
	if len(out) > maxRequested {
		out = out[:maxRequested]
	}
	return out
}

// nodeStatus is one node's line of the status.
func nodeStatus(s nodeState) benchv1.NodeTuningStatus {
	st := benchv1.NodeTuningStatus{Node: s.node}
	r := s.report
	if r == nil {
		st.Message = bound(s.waiting)
		return st
	}
	st.Tuned = r.Tuned && r.Phase == tuning.PhaseApplied
	if n := r.FirewallRules; n != nil && *n >= 0 && *n <= maxFirewallRules {
		st.FirewallRules = ptr.To(int32(*n))
	}
	t := statusupdate.MetaTime(r.Time)
	st.LastUpdateTime = &t
	var notes []string
	if r.Error != "" {
		notes = append(notes, r.Error)
	}
	for _, rf := range r.Refused {
		notes = append(notes, fmt.Sprintf("%s refused: %s", rf.Name, rf.Reason))
	}
	var skipped []string
	for _, sr := range r.Settings {
		switch {
		case sr.Skipped:
			skipped = append(skipped, sr.Name)
		case !sr.OK:
			if len(st.Mismatches) < maxMismatches {
				st.Mismatches = append(st.Mismatches, benchv1.SettingMismatch{Name: sr.Name, Requested: boundTo(sr.Requested, maxValue), Observed: boundTo(sr.Observed, maxValue)})
			}
			if sr.Error != "" {
				notes = append(notes, sr.Error)
			}
		}
	}
	if len(skipped) > 0 {
		notes = append(notes, "skipped, not on this node (preset values): "+strings.Join(skipped, ", "))
	}
	st.Message = bound(strings.Join(notes, "; "))
	return st
}

// setStatus derives the node lines, the counts and the Tuned and Degraded
// conditions from what each selected node reports.
func setStatus(p *benchv1.TuningProfile, states []nodeState) {
	nodes := make([]benchv1.NodeTuningStatus, 0, len(states))
	var tuned, refused, mismatched, notRunning, waiting []string
	for _, s := range states {
		ns := nodeStatus(s)
		nodes = append(nodes, ns)
		switch {
		case ns.Tuned:
			tuned = append(tuned, s.node)
		case s.report != nil && len(s.report.Refused) > 0:
			refused = append(refused, refusalNote(s))
		case s.report != nil:
			mismatched = append(mismatched, mismatchNote(s.node, ns))
		case s.notRunning:
			notRunning = append(notRunning, s.node+": "+s.waiting)
		default:
			waiting = append(waiting, s.node+": "+s.waiting)
		}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Node < nodes[j].Node })
	if len(nodes) > maxNodes {
		nodes = nodes[:maxNodes]
	}
	p.Status.Nodes = nodes
	p.Status.DesiredNodes = int32(len(states))
	p.Status.TunedNodes = int32(len(tuned))

	if len(states) == 0 {
		msg := where(p)
		setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonNoNodes, msg)
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionFalse, benchv1.ReasonNoNodes, msg)
		return
	}
	progress := fmt.Sprintf("%d/%d node(s) tuned", len(tuned), len(states))
	degraded := ""
	switch {
	case len(refused) > 0:
		degraded = benchv1.ReasonRefusedKey
	case len(mismatched) > 0:
		degraded = benchv1.ReasonMismatch
	}
	if degraded != "" {
		msg := strings.Join(append(refused, mismatched...), "; ")
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionTrue, degraded, msg)
		setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, degraded, progress+"; "+msg)
		return
	}
	switch {
	case len(tuned) == len(states):
		msg := progress + ": every value reads back as requested"
		setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionTrue, benchv1.ReasonAllApplied, msg)
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionFalse, benchv1.ReasonAllApplied, msg)
	case len(notRunning) > 0:
		msg := progress + "; the tuner does not run on " + strings.Join(append(notRunning, waiting...), "; ")
		setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonTunerNotRunning, msg)
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionFalse, benchv1.ReasonTunerNotRunning, "no node reports a wrong value")
	default:
		msg := progress + "; waiting for " + strings.Join(waiting, "; ")
		setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonApplying, msg)
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionFalse, benchv1.ReasonApplying, "no node reports a wrong value")
	}
}

// setRestoreStatus derives the status of a deleted profile from what its
// restoring tuners report, and tells whether every node confirmed its
// restore: a "restored" report of the current generation without error, and
// no earlier tuner pod left (stragglers).
func setRestoreStatus(p *benchv1.TuningProfile, states []nodeState, stragglers []string) bool {
	nodes := make([]benchv1.NodeTuningStatus, 0, len(states))
	var unconfirmed, failed []string
	silent := false
	for _, s := range states {
		ns := nodeStatus(s)
		r := s.report
		switch {
		case r == nil:
			unconfirmed = append(unconfirmed, s.node+": "+s.waiting)
			silent = true
		case r.Phase == tuning.PhaseRestored && r.Error == "":
			ns.Message = "restored"
		default:
			why := cmp.Or(r.Error, fmt.Sprintf("the tuner reports %q, not restored", r.Phase))
			if len(ns.Mismatches) > 0 {
				why += " (" + restoreNote(ns.Mismatches) + ")"
			}
			unconfirmed = append(unconfirmed, s.node+": "+why)
			failed = append(failed, s.node+": "+why)
			ns.Message = bound(why)
		}
		nodes = append(nodes, ns)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Node < nodes[j].Node })
	if len(nodes) > maxNodes {
		nodes = nodes[:maxNodes]
	}
	p.Status.Nodes = nodes
	p.Status.DesiredNodes = int32(len(states))
	p.Status.TunedNodes = 0
	confirmed := len(states) - len(unconfirmed)
	unconfirmed = append(unconfirmed, stragglers...)
	if len(unconfirmed) == 0 {
		return true
	}
	msg := fmt.Sprintf("restoring the original values: %d/%d node(s) confirmed restored; not confirmed: %s",
		confirmed, len(states), firstFew(unconfirmed))
	if silent {
		msg += " (a node that is gone for good has nothing to restore: delete its Node object)"
	}
	setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonRestoring, msg)
	if len(failed) > 0 {
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionTrue, benchv1.ReasonRestoreFailed,
			"the tuner could not restore "+firstFew(failed)+
				"; it tries again every minute; to give the values up, remove the finalizer "+finalizer)
	} else {
		setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionFalse, benchv1.ReasonRestoring, "no node reports a failed restore")
	}
	return false
}

// firstFew joins a list, naming five at most and counting the rest.
func firstFew(items []string) string {
	const shown = 5
	if len(items) <= shown {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:shown], "; "), len(items)-shown)
}

// restoreNote names the values a restore did not bring back.
func restoreNote(ms []benchv1.SettingMismatch) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%s reads %q, original %q", m.Name, m.Observed, m.Requested))
	}
	return strings.Join(parts, ", ")
}

func refusalNote(s nodeState) string {
	var parts []string
	for _, rf := range s.report.Refused {
		parts = append(parts, fmt.Sprintf("%s (%s)", rf.Name, rf.Reason))
	}
	return fmt.Sprintf("node %s refused %s", s.node, strings.Join(parts, ", "))
}

func mismatchNote(node string, ns benchv1.NodeTuningStatus) string {
	var parts []string
	for _, m := range ns.Mismatches {
		parts = append(parts, fmt.Sprintf("%s reads %q, requested %q", m.Name, m.Observed, m.Requested))
	}
	msg := fmt.Sprintf("node %s: %s", node, strings.Join(parts, ", "))
	if ns.Message != "" {
		msg += " (" + ns.Message + ")"
	}
	return msg
}

// where says which nodes a profile selects.
func where(p *benchv1.TuningProfile) string {
	if p.Spec.Pool != "" {
		return fmt.Sprintf("no node carries the label %s=%s of pool %s (control-plane nodes and nodes with other NoSchedule taints are left out)", benchv1.PoolLabel, p.Spec.Pool, p.Spec.Pool)
	}
	return "no node matches the nodeSelector " + labels.Set(p.Spec.NodeSelector).String() +
		" (only nodes an admin opted in with " + benchv1.BenchmarkNodeLabel + "=true count; control-plane nodes and nodes with NoSchedule taints are left out)"
}

// bound cuts a message to the CRD's length.
func bound(s string) string {
	return boundTo(s, maxMessage)
}

// boundTo cuts s to at most n bytes, ending it with "..." when cut.
func boundTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n-3]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}

// stateOf is the profile's one-word state, from its conditions.
func stateOf(p *benchv1.TuningProfile) benchv1.TuningState {
	switch {
	case !p.DeletionTimestamp.IsZero():
		return benchv1.TuningRestoring
	case meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.TuningConditionDegraded):
		return benchv1.TuningDegraded
	case meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.TuningConditionTuned):
		return benchv1.TuningTuned
	}
	return benchv1.TuningApplying
}
