package tuningprofile

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/internal/podlogs"
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

// APILogReader is podlogs' reader of logs through the API server's
// pods/log, which can also read a log's tail (TailReader).
type APILogReader struct {
	podlogs.APILogReader
}

// ReadLogTail returns the container's last lines, up to tailBytes.
func (a APILogReader) ReadLogTail(ctx context.Context, namespace, pod, container string, lines int64) ([]byte, error) {
	limit := int64(tailBytes)
	return a.Client.Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{
		Container: container, TailLines: &lines, LimitBytes: &limit,
	}).DoRaw(ctx)
}
