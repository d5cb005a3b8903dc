package tuningprofile

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/tuning"
)

// nodeState is what is known of one selected node.
type nodeState struct {
	node string
	// pod is the node's tuner pod (the one of the current generation when
	// there are two); nil when there is none yet.
	pod *corev1.Pod
	// report is the latest report of the current generation.
	report *tuning.Report
	// waiting says why there is no such report; notRunning marks a tuner
	// that cannot run (unschedulable, image pull, crash) rather than one
	// that is starting.
	waiting    string
	notRunning bool
}

// selectedNodes are the nodes the tuner DaemonSet runs on: those its node
// affinity matches whose NoSchedule and NoExecute taints it tolerates (the
// DaemonSet controller tolerates the node.kubernetes.io/ condition taints
// itself).
func (r *Reconciler) selectedNodes(ctx context.Context, p *benchv1.TuningProfile) ([]string, error) {
	reqs, tolerations := placement(p)
	sel, err := nodeLabelSelector(reqs)
	if err != nil {
		return nil, err
	}
	var nodes corev1.NodeList
	if err := r.List(ctx, &nodes, client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, err
	}
	var out []string
	for i := range nodes.Items {
		if tolerated(nodes.Items[i].Spec.Taints, tolerations) {
			out = append(out, nodes.Items[i].Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func tolerated(taints []corev1.Taint, tolerations []corev1.Toleration) bool {
	for i := range taints {
		t := &taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule || strings.HasPrefix(t.Key, "node.kubernetes.io/") {
			continue
		}
		ok := false
		for j := range tolerations {
			ok = ok || tolerations[j].ToleratesTaint(t)
		}
		if !ok {
			return false
		}
	}
	return true
}

// tunerPods are the profile's pods, found by label and kept by UID.
func (r *Reconciler) tunerPods(ctx context.Context, p *benchv1.TuningProfile) ([]*corev1.Pod, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(r.Namespace), client.MatchingLabels(childLabels(p))); err != nil {
		return nil, err
	}
	var out []*corev1.Pod
	for i := range pods.Items {
		if ours(&pods.Items[i], p) {
			out = append(out, &pods.Items[i])
		}
	}
	return out, nil
}

// observe finds each selected node's tuner pod and reads its latest report.
func (r *Reconciler) observe(ctx context.Context, p *benchv1.TuningProfile, nodes []string) ([]nodeState, error) {
	pods, err := r.tunerPods(ctx, p)
	if err != nil {
		return nil, err
	}
	byNode := map[string]*corev1.Pod{}
	for _, pod := range pods {
		if prev := byNode[pod.Spec.NodeName]; prev == nil || better(pod, prev, p.Generation) {
			byNode[pod.Spec.NodeName] = pod
		}
	}
	states := make([]nodeState, 0, len(nodes))
	for _, n := range nodes {
		s := nodeState{node: n, pod: byNode[n]}
		r.readReport(ctx, p, &s)
		states = append(states, s)
	}
	return states, nil
}

// better prefers a pod of the current generation, then the newer one.
func better(a, b *corev1.Pod, generation int64) bool {
	ga, gb := podGeneration(a) == generation, podGeneration(b) == generation
	if ga != gb {
		return ga
	}
	return b.CreationTimestamp.Before(&a.CreationTimestamp)
}

func podGeneration(pod *corev1.Pod) int64 {
	g, err := strconv.ParseInt(pod.Annotations[generationAnnotation], 10, 64)
	if err != nil {
		return -1
	}
	return g
}

// readReport fills in the node's report, or why there is none.
func (r *Reconciler) readReport(ctx context.Context, p *benchv1.TuningProfile, s *nodeState) {
	pod := s.pod
	switch {
	case pod == nil:
		s.waiting = "no tuner pod on the node yet"
		return
	case pod.Status.Phase == corev1.PodPending:
		if why := podlogs.WhyPending(pod); len(why) > 0 {
			s.waiting, s.notRunning = strings.Join(why, "; "), true
		} else {
			s.waiting = fmt.Sprintf("tuner pod %s is starting", pod.Name)
		}
		return
	case pod.Status.Phase != corev1.PodRunning:
		s.waiting, s.notRunning = fmt.Sprintf("tuner pod %s is %s", pod.Name, pod.Status.Phase), true
		return
	}
	log, err := r.readTail(ctx, pod)
	if err != nil {
		s.waiting = fmt.Sprintf("the log of tuner pod %s cannot be read: %v", pod.Name, err)
		return
	}
	rep, err := tuning.ParseReports(log)
	if errors.Is(err, tuning.ErrNoReport) {
		s.waiting = fmt.Sprintf("tuner pod %s has not reported yet", pod.Name)
		if w := crashing(pod); w != "" {
			s.waiting, s.notRunning = w, true
		}
		return
	}
	if err != nil {
		s.waiting = fmt.Sprintf("the log of tuner pod %s: %v", pod.Name, err)
		return
	}
	if rep.Profile != p.Name || rep.Generation != p.Generation {
		s.waiting = fmt.Sprintf("tuner pod %s reports generation %d; waiting for generation %d", pod.Name, rep.Generation, p.Generation)
		return
	}
	s.report = &rep
}

// crashing describes a tuner container that restarts (an error report
// precedes each restart, the log's tail may hold none).
func crashing(pod *corev1.Pod) string {
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && cs.RestartCount > 0 {
			return fmt.Sprintf("tuner pod %s: %s after %d restart(s)", pod.Name, w.Reason, cs.RestartCount)
		}
	}
	return ""
}

func (r *Reconciler) readTail(ctx context.Context, pod *corev1.Pod) ([]byte, error) {
	if t, ok := r.Logs.(TailReader); ok {
		return t.ReadLogTail(ctx, pod.Namespace, pod.Name, container, tailLines)
	}
	return r.Logs.ReadLog(ctx, pod.Namespace, pod.Name, container)
}
