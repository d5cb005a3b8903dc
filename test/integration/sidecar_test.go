package integration

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sidecar is a native sidecar (an init container that restarts Always: the
// sampler) as the fake kubelets run it, for real: started before the
// containers after it, stopped with SIGTERM once the pod's containers are
// done, as the kubelet stops sidecars.
type sidecar struct {
	c     corev1.Container
	cmd   *exec.Cmd
	out   bytes.Buffer
	began metav1.Time
}

func isSidecar(c corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// startSidecar starts c's argv, the manager's /benchwright being the CLI
// built for the tests, its pod paths under /data/ mapped under dataRoot.
func startSidecar(t *testing.T, c corev1.Container, dataRoot string) *sidecar {
	s := &sidecar{c: c, began: metav1.Now()}
	argv := append(append([]string{}, c.Command...), c.Args...)
	for i, a := range argv {
		argv[i] = strings.ReplaceAll(a, "/data/", dataRoot+"/data/")
	}
	if argv[0] == "/benchwright" {
		argv[0] = benchwrightCLI(t)
	}
	s.cmd = exec.Command(argv[0], argv[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	if err := s.cmd.Start(); err != nil {
		s.out.WriteString(err.Error())
		s.cmd = nil
	}
	return s
}

// stop ends the sidecar and returns its log and its status.
func (s *sidecar) stop() ([]byte, corev1.ContainerStatus) {
	code := int32(0)
	if s.cmd == nil {
		code = 127
	} else {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				code = 1
			}
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			if err := <-done; err != nil {
				code = 137
			}
		}
	}
	return s.out.Bytes(), corev1.ContainerStatus{Name: s.c.Name, Image: s.c.Image, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: s.began, FinishedAt: metav1.Now(), Reason: reasonFor(code)},
	}}
}
