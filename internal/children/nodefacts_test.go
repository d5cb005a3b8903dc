package children

import (
	"context"
	"errors"
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
