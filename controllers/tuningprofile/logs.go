package tuningprofile

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// TailReader reads the end of a container's log. A tuner runs as long as its
// profile and reports every minute: only its last lines matter.
type TailReader interface {
	ReadLogTail(ctx context.Context, namespace, pod, container string, lines int64) ([]byte, error)
}

// tailLines and tailBytes bound what is read of a tuner's log: a report of
// 128 settings is under 32 KiB.
const (
	tailLines = 10
	tailBytes = 1 << 20
)

// APILogReader reads tuner logs through the API server's pods/log, the whole
// log (benchrun.LogReader) or its tail (TailReader).
type APILogReader struct {
	Client kubernetes.Interface
}

// ReadLog returns up to tailBytes of the container's log.
func (a APILogReader) ReadLog(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	return a.read(ctx, namespace, pod, &corev1.PodLogOptions{Container: container})
}

// ReadLogTail returns the container's last lines.
func (a APILogReader) ReadLogTail(ctx context.Context, namespace, pod, container string, lines int64) ([]byte, error) {
	return a.read(ctx, namespace, pod, &corev1.PodLogOptions{Container: container, TailLines: &lines})
}

func (a APILogReader) read(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) ([]byte, error) {
	limit := int64(tailBytes)
	opts.LimitBytes = &limit
	return a.Client.CoreV1().Pods(namespace).GetLogs(pod, opts).DoRaw(ctx)
}
