// Package crashpoint lets the chaos test (test/e2e/chaos_test.go) SIGKILL
// the manager at a chosen point of its work: creating a child, collecting a
// repetition, writing a status, half-way through an upload to the artifact
// store. It is inert unless the manager's environment sets
// BENCHWRIGHT_TEST_CRASHPOINT_DIR.
//
// With it set, Reach(name) looks for the file arm-<name> in that directory.
// If the test put it there, the first goroutine to reach the point removes
// it, writes at-<name> and sleeps: the test, which waits for at-<name>,
// kills the process while it stands there. Unarmed, a point costs one
// failed unlink.
package crashpoint

import (
	"io"
	"os"
	"path/filepath"
	"time"
)

// EnvVar names the directory of the arm- and at- files; unset, Reach does
// nothing.
const EnvVar = "BENCHWRIGHT_TEST_CRASHPOINT_DIR"

// The points the manager marks.
const (
	// ChildCreated: a child (Job, MPIJob, claim) was just
	// created, before the next one and before the status records it.
	ChildCreated = "child-created"
	// Collected: a repetition's output was read and its raw logs stored,
	// before its samples are.
	Collected = "collected"
	// StatusWrite: a benchmark's new status is about to be written.
	StatusWrite = "status-write"
	// Uploading: a streamed upload to the artifact store (samples.ndjson,
	// samples.csv) has begun and is not done.
	Uploading = "uploading"
)

// hold is how long a reached point waits to be killed before it goes on.
const hold = 30 * time.Second

var dir = os.Getenv(EnvVar)

// Reach marks point name: when armed, it reports it and waits to be killed.
func Reach(name string) {
	if dir == "" {
		return
	}
	if os.Remove(filepath.Join(dir, "arm-"+name)) != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, "at-"+name), nil, 0o644)
	time.Sleep(hold)
}

// Writer is w, or, with the points enabled, w reaching point name after
// its first write returned (an upload reading from a pipe is under way
// then).
func Writer(w io.Writer, name string) io.Writer {
	if dir == "" {
		return w
	}
	return &reachWriter{w: w, name: name}
}

type reachWriter struct {
	w       io.Writer
	name    string
	reached bool
}

func (r *reachWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if !r.reached {
		r.reached = true
		Reach(r.name)
	}
	return n, err
}
