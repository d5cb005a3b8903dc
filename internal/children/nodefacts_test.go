package children

import (
	"context"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/outcome"
)

// logOf serves one log, or an error.
type logOf struct {
	log []byte
	err error
}

func (l logOf) ReadLog(context.Context, string, string, string) ([]byte, error) { return l.log, l.err }

func TestReadNodeFacts(t *testing.T) {
	bare := &corev1.Pod{}
	withStep := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{NodeFactsStep("manager:v1", false, corev1.ResourceRequirements{})}}}
	if f, err := ReadNodeFacts(context.Background(), logOf{err: errors.New("never read")}, bare); f != nil || err != nil {
		t.Errorf("a pod without the step: %v, %v", f, err)
	}
	line := nodefacts.Line(nodefacts.Facts{CPUMHz: 2600, MTU: 1460})
	if f, err := ReadNodeFacts(context.Background(), logOf{log: []byte(line + "\n")}, withStep); err != nil || f.CPUMHz != 2600 || f.MTU != 1460 {
		t.Errorf("facts %+v, %v", f, err)
	}
	_, err := ReadNodeFacts(context.Background(), logOf{log: []byte("exec /benchwright: no such file or directory\n")}, withStep)
	if oe := (*outcome.Outcome)(nil); !errors.As(err, &oe) || oe.Reason != benchv1.ReasonUnparsableOutput {
		t.Errorf("a log without facts: %v, want an UnparsableOutput failure", err)
	}
	_, err = ReadNodeFacts(context.Background(), logOf{err: errors.New("container not found")}, withStep)
	if oe := (*outcome.Outcome)(nil); err == nil || errors.As(err, &oe) {
		t.Errorf("an unreadable log: %v, want an error to try again", err)
	}
}

// noLog fails the test if the log is read.
type noLog struct{ t *testing.T }

func (n noLog) ReadLog(context.Context, string, string, string) ([]byte, error) {
	n.t.Error("the log was read")
	return nil, errors.New("no log")
}

// factsMessage is a pod with the node-facts step that ended with message.
func factsMessage(message string) *corev1.Pod {
	pod := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{NodeFactsStep("manager:v1", false, corev1.ResourceRequirements{})}}}
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: NodeFactsContainer, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{Message: message},
	}}}
	return pod
}

// The facts of the step's termination message are read without its log.
func TestReadNodeFactsFromMessage(t *testing.T) {
	line := nodefacts.Line(nodefacts.Facts{CPUMHz: 2600, MTU: 1460}) + "\n"
	f, err := ReadNodeFacts(context.Background(), noLog{t}, factsMessage(line))
	if err != nil || f == nil || f.CPUMHz != 2600 || f.MTU != 1460 {
		t.Errorf("facts %+v, %v", f, err)
	}
}

// A message without facts (none, cut by the kubelet, garbage) is no failure:
// the log is read, and only a log without facts fails.
func TestReadNodeFactsMessageWithoutFacts(t *testing.T) {
	logged := nodefacts.Line(nodefacts.Facts{CPUMHz: 3000, MTU: 9000}) + "\n"
	full := nodefacts.Line(nodefacts.Facts{CPUMHz: 2600, MTU: 1460, Mitigations: map[string]string{"spectre_v2": "Mitigation: Retpolines"}})
	for name, message := range map[string]string{
		"none":            "",
		"start cut":       full[len(full)-40:],
		"end cut":         full[:len(full)-10],
		"garbage":         "benchwright-nodefacts: {\"cpu_mhz\": \"fast\"}",
		"not the facts":   "Error on reading termination log /var/lib/kubelet/pods/x: permission denied",
		"too high":        nodefacts.Line(nodefacts.Facts{CPUMHz: 1e9}),
		"other container": "",
	} {
		pod := factsMessage(message)
		if name == "other container" {
			pod.Status.InitContainerStatuses[0].Name = "drop-caches"
			pod.Status.InitContainerStatuses[0].State.Terminated.Message = full
		}
		f, err := ReadNodeFacts(context.Background(), logOf{log: []byte(logged)}, pod)
		if err != nil || f == nil || f.CPUMHz != 3000 || f.MTU != 9000 {
			t.Errorf("%s: facts %+v, %v; want the log's", name, f, err)
		}
		_, err = ReadNodeFacts(context.Background(), logOf{log: []byte("exec /benchwright: no such file or directory\n")}, pod)
		if oe := (*outcome.Outcome)(nil); !errors.As(err, &oe) || oe.Reason != benchv1.ReasonUnparsableOutput {
			t.Errorf("%s, and a log without facts: %v, want an UnparsableOutput failure", name, err)
		}
	}
}

// The step writes its line as its termination message, from a file only.
func TestNodeFactsStepTerminationMessage(t *testing.T) {
	c := NodeFactsStep("manager:v1", true, corev1.ResourceRequirements{})
	if c.TerminationMessagePolicy != corev1.TerminationMessageReadFile || c.TerminationMessagePath != corev1.TerminationMessagePathDefault {
		t.Errorf("termination message %q from %s", c.TerminationMessagePath, c.TerminationMessagePolicy)
	}
	if !slices.Contains(c.Args, "--termination-log="+c.TerminationMessagePath) {
		t.Errorf("args %v do not write %s", c.Args, c.TerminationMessagePath)
	}
}
