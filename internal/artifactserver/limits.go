package artifactserver

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// The server's bounds. A file is streamed from the store in the copy's
// 32 KiB chunks, so a reader costs the manager about that much, whatever the
// object's size; the bounds keep their number and their time finite.
const (
	// MaxConcurrentRequests is how many requests the server works on at once
	// (per Limiter, which the manager shares between its listeners).
	MaxConcurrentRequests = 16
	// QueueWait is how long a request waits for a slot before a 429.
	QueueWait = 5 * time.Second
	// WriteStallTimeout bounds each write to a client: one that takes no
	// bytes for this long is dropped. A deadline per write, not one for the
	// whole response, lets a slow but moving client fetch 64 MiB.
	WriteStallTimeout = 30 * time.Second
	// MaxRequestDuration bounds a whole response, so a client that reads a
	// byte at a time cannot keep a slot for hours.
	MaxRequestDuration = 15 * time.Minute
	// PublishReadTimeout bounds reading a published report's body.
	PublishReadTimeout = 2 * time.Minute
)

// Limiter caps the requests in progress: a request waits up to its wait for
// a slot, then is refused with 429 and Retry-After.
type Limiter struct {
	slots chan struct{}
	wait  time.Duration
}

// NewLimiter lets n requests in at once, each waiting at most wait for a slot.
func NewLimiter(n int, wait time.Duration) *Limiter {
	return &Limiter{slots: make(chan struct{}, n), wait: wait}
}

// acquire takes a slot, false when none freed up in time or ctx ended.
func (l *Limiter) acquire(ctx context.Context) bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (l *Limiter) release() { <-l.slots }

// tooBusy answers a request that found no slot.
func tooBusy(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(int(QueueWait/time.Second)))
	http.Error(w, "the artifact server is busy: try again shortly", http.StatusTooManyRequests)
}

// deadlineWriter gives each Write its own deadline, WriteStallTimeout from
// now but never past the request's end (MaxRequestDuration after it began).
type deadlineWriter struct {
	http.ResponseWriter
	rc  *http.ResponseController
	end time.Time
}

func newDeadlineWriter(w http.ResponseWriter, now time.Time) *deadlineWriter {
	return &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), end: now.Add(MaxRequestDuration)}
}

func (d *deadlineWriter) deadline() {
	t := time.Now().Add(WriteStallTimeout)
	if t.After(d.end) {
		t = d.end
	}
	// A writer without deadlines (a test's recorder) is written without.
	_ = d.rc.SetWriteDeadline(t)
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.deadline()
	return d.ResponseWriter.Write(p)
}

func (d *deadlineWriter) WriteHeader(code int) {
	d.deadline()
	d.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
