package benchrun

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// LogReader reads the log of one container of a finished pod. The manager
// reads through the API server (kubectl logs); tests feed real tool output,
// since envtest has no kubelet.
type LogReader interface {
	ReadLog(ctx context.Context, namespace, pod, container string) ([]byte, error)
}

// LogGrace is how long the logs of a finished pod may stay unreadable before
// the benchmark fails with LogsUnavailable.
const LogGrace = 5 * time.Minute

// maxLogBytes bounds what is read of one container's log: fio's JSON for 64
// jobs is well under 1 MiB.
const maxLogBytes = 64 << 20

// APILogReader reads container logs through the API server's pods/log.
type APILogReader struct {
	Client kubernetes.Interface
}

// ReadLog returns the container's whole log, up to maxLogBytes.
func (a APILogReader) ReadLog(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	limit := int64(maxLogBytes)
	return a.Client.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{
		Container: container, LimitBytes: &limit,
	}).DoRaw(ctx)
}
