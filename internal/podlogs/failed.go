package podlogs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
)

// LogStreamer is a LogReader that can also hand a log out as a stream, so
// that the reader need not hold it whole: the failure path stores a failed
// tool's log as it reads it (see ReadFailed).
type LogStreamer interface {
	LogReader
	// StreamLog opens the container's log; the caller closes it. The stream
	// may end after MaxLogBytes+1 bytes.
	StreamLog(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error)
	// TailLog reads the end of the container's log: its last lines, at most
	// 64 KiB.
	TailLog(ctx context.Context, namespace, pod, container string) ([]byte, error)
}

// Failed is what the manager keeps of a failed tool's log: its first
// diagnostic lines and its end, never the whole log.
type Failed struct {
	// End is the log's last bytes: as many as ReadFailed was asked to keep,
	// or the last lines of a log over MaxLogBytes.
	End []byte
	// TooLarge: the log is over MaxLogBytes; nothing was stored.
	TooLarge bool
	// Unreadable is why the log could not be read, if it could not.
	Unreadable error
	said       diagnostics
}

// Quote is what a failure message quotes of the log, as Quote does of a
// whole log: its diagnostics, or its last lines.
func (f *Failed) Quote() string {
	switch {
	case f.Unreadable != nil:
		return fmt.Sprintf("(its log could not be read: %v)", f.Unreadable)
	case f.TooLarge:
		return fmt.Sprintf("(its log is over the %d MiB the manager reads) %s", MaxLogBytes>>20, Diagnostics(f.End))
	case len(f.said.said) > 0:
		return f.said.String()
	}
	return Tail(f.End)
}

// errTooLarge stops a stream past MaxLogBytes.
var errTooLarge = errors.New("the log is over MaxLogBytes")

// ReadFailed reads a failed container's log as a stream: store (nil: none)
// is given a reader of the log to keep it, and ReadFailed keeps only its
// diagnostics and its last keep bytes (at least what Quote needs). A log over MaxLogBytes is not stored
// (store sees an error and must drop what it wrote) and End is the log's
// last lines. The error is store's own, for the caller to return; a log
// that cannot be read is Failed.Unreadable.
//
// A LogReader that cannot stream (a test's) hands the log over whole.
func ReadFailed(ctx context.Context, logs LogReader, pod *corev1.Pod, container string, keep int, store func(io.Reader) error) (*Failed, error) {
	f, keep := &Failed{}, max(keep, tailBytes+1)
	var stream io.ReadCloser
	if s, ok := logs.(LogStreamer); ok {
		stream, f.Unreadable = s.StreamLog(ctx, pod.Namespace, pod.Name, container)
	} else {
		var log []byte
		log, f.Unreadable = logs.ReadLog(ctx, pod.Namespace, pod.Name, container)
		stream = io.NopCloser(bytes.NewReader(log))
	}
	if tl := (*LogTooLargeError)(nil); errors.As(f.Unreadable, &tl) {
		f.Unreadable, f.TooLarge, f.End = nil, true, tl.Tail
		return f, nil
	}
	if f.Unreadable != nil {
		return f, nil
	}
	defer func() { _ = stream.Close() }()
	c := &capture{r: stream, keep: keep, said: &f.said}
	var serr error
	if store != nil {
		serr = store(c)
	}
	if c.err == nil && (serr == nil || store == nil) {
		_, _ = io.Copy(io.Discard, c) // what store did not read
	}
	c.flush()
	switch {
	case errors.Is(c.err, errTooLarge):
		f.TooLarge, f.End = true, c.end()
		if s, ok := logs.(LogStreamer); ok {
			if tail, err := s.TailLog(ctx, pod.Namespace, pod.Name, container); err == nil {
				f.End = tail
			}
		}
		f.End = f.End[max(0, len(f.End)-maxTailBytes):]
		return f, nil
	case c.err != nil:
		f.Unreadable = c.err
		return f, nil
	}
	f.End = c.end()
	return f, serr
}

// capture reads a log through, keeping its diagnostics and its end.
type capture struct {
	r    io.Reader
	keep int
	n    int64
	err  error // the stream's, not io.EOF
	// buf holds the end: up to 2*keep bytes, cut back to keep when full;
	// nl counts the newlines after it.
	buf  []byte
	nl   int
	line []byte // the current line's start, for diagnostics
	said *diagnostics
	done bool // no more diagnostics wanted
}

// maxLine is how much of a line is looked at for diagnostics.
const maxLine = 4 * tailBytes

func (c *capture) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if over := c.n + int64(n) - MaxLogBytes; over > 0 {
		n -= int(over)
		err = errTooLarge
	}
	c.n += int64(n)
	c.see(p[:n])
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// see keeps what the log's bytes add to the end and the diagnostics.
func (c *capture) see(p []byte) {
	if c.keep > 0 {
		// A run of newlines at the end is held as a count: quoted, a log's
		// end is its last lines, and a log may end in megabytes of them.
		body := bytes.TrimRight(p, "\n")
		if len(body) > 0 {
			for n := min(c.nl, c.keep); n > 0; n -= min(n, len(newlines)) {
				c.keepEnd(newlines[:min(n, len(newlines))])
			}
			c.keepEnd(body)
			c.nl = 0
		}
		c.nl += len(p) - len(body)
	}
	for len(p) > 0 && !c.done {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxLine - len(c.line); room > 0 {
			c.line = append(c.line, chunk[:min(room, len(chunk))]...)
		}
		if i < 0 {
			return
		}
		c.done = !c.said.add(c.line)
		c.line, p = c.line[:0], p[i+1:]
	}
}

var newlines = bytes.Repeat([]byte("\n"), 4096)

// keepEnd adds p to the end kept.
func (c *capture) keepEnd(p []byte) {
	if c.buf == nil {
		c.buf = make([]byte, 0, 2*c.keep+1)
	}
	if len(p) >= c.keep {
		c.buf = append(c.buf[:0], p[len(p)-c.keep:]...)
		return
	}
	if len(c.buf)+len(p) > 2*c.keep {
		c.buf = append(c.buf[:0], c.buf[len(c.buf)-(c.keep-len(p)):]...)
	}
	c.buf = append(c.buf, p...)
}

// flush ends the last line.
func (c *capture) flush() {
	if len(c.line) > 0 && !c.done {
		c.said.add(c.line)
	}
	c.line = nil
}

// end is the log's last keep bytes, a run of newlines at its end as one.
func (c *capture) end() []byte {
	end := c.buf[max(0, len(c.buf)-c.keep):]
	if c.nl > 0 {
		end = append(end, '\n') // within buf's capacity: 2*keep+1
	}
	return end
}
