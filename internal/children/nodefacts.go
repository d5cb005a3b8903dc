package children

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
)

// NodeFactsContainer is the node-facts step of every benchmark pod: an init
// container that prints the node's facts (internal/nodefacts) as the
// repetition starts.
const NodeFactsContainer = "node-facts"

// nodeFactsUser runs the step: the manager image's own non-root user.
const nodeFactsUser = 65532

// NodeFactsStep is the node-facts init container. It runs the benchwright
// binary of the manager's image (/benchwright; image is the manager's, never
// the spec's), with a fixed argv, as a non-root user without any capability
// on a read-only root: /sys and /proc are world-readable, and the kubelet
// bind-mounts the termination message file writable by anyone (0666). It gets the
// resources of the pod's tool container, so that a Guaranteed pod stays
// Guaranteed and, under the static CPU manager, the step reads the frequency
// of the very CPUs the tool gets.
func NodeFactsStep(image string, hostNetwork bool, resources corev1.ResourceRequirements) corev1.Container {
	network := "pod"
	if hostNetwork {
		network = "host"
	}
	return corev1.Container{
		Name: NodeFactsContainer, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command:   []string{"/benchwright"},
		Args:      []string{"nodefacts", "--network=" + network, "--termination-log=" + corev1.TerminationMessagePathDefault},
		Resources: *resources.DeepCopy(),
		// The line is also the termination message, which the manager reads
		// from the pod's status: a file only, never the log's tail, so that a
		// message is the step's own line.
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		SecurityContext:          managerStepSecurity(),
	}
}

// managerStepSecurity is how the manager's own steps in benchmark pods run
// (the node-facts step, the sampler): its image's non-root user, without
// any capability, on a read-only root.
func managerStepSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsUser: ptr.To[int64](nodeFactsUser), RunAsGroup: ptr.To[int64](nodeFactsUser), RunAsNonRoot: ptr.To(true),
		AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// HasNodeFacts tells whether a pod has the node-facts step (pods of an
// older manager do not).
func HasNodeFacts(pod *corev1.Pod) bool {
	return slices.ContainsFunc(pod.Spec.InitContainers, func(c corev1.Container) bool { return c.Name == NodeFactsContainer })
}

// ReadNodeFacts reads the facts the pod's node-facts step printed: nil for a
// pod without the step; an error to try again when its log cannot be read
// yet; an UnparsableOutput failure when it has no facts line. The step's
// termination message, in the pod's status, is read first: its log is read
// only when the message holds no facts (pods of an older manager, kwok, a
// line the kubelet cut).
func ReadNodeFacts(ctx context.Context, logs podlogs.LogReader, pod *corev1.Pod) (*nodefacts.Facts, error) {
	if !HasNodeFacts(pod) {
		return nil, nil
	}
	if f, ok := messageFacts(pod); ok {
		return &f, nil
	}
	log, err := podlogs.ReadLog(ctx, logs, pod, NodeFactsContainer)
	if tl := (*podlogs.LogTooLargeError)(nil); errors.As(err, &tl) {
		return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("the node facts of pod %s on node %s: %v", pod.Name, podlogs.NodeOf(pod), err))
	}
	if err != nil {
		return nil, fmt.Errorf("reading the node facts of pod %s: %w", pod.Name, err)
	}
	f, err := nodefacts.ParseLine(log)
	if err != nil {
		return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("the node facts of pod %s on node %s: %v\n%s", pod.Name, podlogs.NodeOf(pod), err, podlogs.Tail(log)))
	}
	return &f, nil
}

// messageFacts are the facts of the node-facts step's termination message,
// if it holds them.
func messageFacts(pod *corev1.Pod) (nodefacts.Facts, bool) {
	for _, s := range pod.Status.InitContainerStatuses {
		if s.Name != NodeFactsContainer || s.State.Terminated == nil {
			continue
		}
		f, err := nodefacts.ParseLine([]byte(s.State.Terminated.Message))
		return f, err == nil
	}
	return nodefacts.Facts{}, false
}
