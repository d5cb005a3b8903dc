package podlogs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
)

// LogReader reads the log of one container of a finished pod. The manager
// reads through the API server (kubectl logs); tests feed real tool output,
// since envtest has no kubelet. A reader may stop after MaxLogBytes+1 bytes,
// or return a *LogTooLargeError.
type LogReader interface {
	ReadLog(ctx context.Context, namespace, pod, container string) ([]byte, error)
}

// LogGrace is how long the logs of a finished pod may stay unreadable before
// the benchmark fails with LogsUnavailable.
const LogGrace = 5 * time.Minute

// MaxLogBytes is the most the manager reads of one container's log: 16 MiB,
// above the 10 MiB at which the kubelet rotates a log by default, and far
// above the largest legitimate outputs (fio's JSON for 72 jobs with
// percentiles, IMB-MPI1's every test and size, OSU -f, a netbench report of
// fabtests -S all on many pairs: each under 2 MiB). A longer log fails the
// benchmark with OutputTooLarge and its tail, so that no output can exhaust
// the manager's memory.
const MaxLogBytes = 16 << 20

// maxTailBytes bounds the tail read of a log over MaxLogBytes.
const maxTailBytes = 64 << 10

// LogTooLargeError is a log over MaxLogBytes; Tail is its end.
type LogTooLargeError struct {
	Tail []byte
}

func (e *LogTooLargeError) Error() string {
	return fmt.Sprintf("the log is over the %d MiB the manager reads of one log", MaxLogBytes>>20)
}

// APILogReader reads container logs through the API server's pods/log. It
// takes the core/v1 client alone: the manager links no other typed client.
type APILogReader struct {
	Client corev1client.PodsGetter
}

// ReadLog returns the container's log, streamed and bounded: a log over
// MaxLogBytes is a *LogTooLargeError with its last lines.
func (a APILogReader) ReadLog(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	limit := int64(MaxLogBytes + 1)
	log, err := a.read(ctx, namespace, pod, &corev1.PodLogOptions{Container: container, LimitBytes: &limit})
	if err != nil || len(log) <= MaxLogBytes {
		return log, err
	}
	lines, tailLimit := int64(tailLines), int64(maxTailBytes)
	tail, err := a.read(ctx, namespace, pod, &corev1.PodLogOptions{Container: container, TailLines: &lines, LimitBytes: &tailLimit})
	if err != nil {
		tail = log[len(log)-tailBytes:]
	}
	return nil, &LogTooLargeError{Tail: tail}
}

// StreamLog opens the container's log, bounded to MaxLogBytes+1 bytes.
func (a APILogReader) StreamLog(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error) {
	limit := int64(MaxLogBytes + 1)
	return a.Client.Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container, LimitBytes: &limit}).Stream(ctx)
}

// TailLog reads the container's last lines, at most maxTailBytes.
func (a APILogReader) TailLog(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	lines, limit := int64(tailLines), int64(maxTailBytes)
	return a.read(ctx, namespace, pod, &corev1.PodLogOptions{Container: container, TailLines: &lines, LimitBytes: &limit})
}

var _ LogStreamer = APILogReader{}

func (a APILogReader) read(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) ([]byte, error) {
	stream, err := a.Client.Pods(namespace).GetLogs(pod, opts).Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = stream.Close() }()
	return io.ReadAll(io.LimitReader(stream, *opts.LimitBytes))
}

// ReadLog reads a container's log through logs, bounded by MaxLogBytes
// whatever the reader: a longer log is a *LogTooLargeError.
func ReadLog(ctx context.Context, logs LogReader, pod *corev1.Pod, container string) ([]byte, error) {
	log, err := logs.ReadLog(ctx, pod.Namespace, pod.Name, container)
	if err == nil && len(log) > MaxLogBytes {
		return nil, &LogTooLargeError{Tail: log[len(log)-min(len(log), maxTailBytes):]}
	}
	return log, err
}

// ReadOutput reads the log that holds a tool's result: a log over
// MaxLogBytes fails the benchmark with OutputTooLarge, naming the cap and
// quoting the log's end (the caller names the pod).
func ReadOutput(ctx context.Context, logs LogReader, pod *corev1.Pod, container string) ([]byte, error) {
	log, err := ReadLog(ctx, logs, pod, container)
	if tl := (*LogTooLargeError)(nil); errors.As(err, &tl) {
		return nil, outcome.Fail(benchv1.ReasonOutputTooLarge, fmt.Sprintf(
			"the log of container %s is over the %d MiB the manager reads of one log (MaxLogBytes, so that no output can exhaust its memory): have the tool print less, e.g. fewer jobs, tests or pairs per benchmark\n%s",
			container, MaxLogBytes>>20, Tail(tl.Tail)))
	}
	return log, err
}

// Quote is what a failure message quotes of a failed tool's log, as ReadLog
// returned it: its diagnostics, those of its end when it was over
// MaxLogBytes, or why it could not be read.
func Quote(log []byte, err error) string {
	tl := (*LogTooLargeError)(nil)
	switch {
	case errors.As(err, &tl):
		return fmt.Sprintf("(its log is over the %d MiB the manager reads) %s", MaxLogBytes>>20, Diagnostics(tl.Tail))
	case err != nil:
		return fmt.Sprintf("(its log could not be read: %v)", err)
	}
	return Diagnostics(log)
}
