package source

import (
	"context"
	"io"
)

// A MonitorSource is a Source whose runs may keep the sampler's series:
// monitor/<repetition>/<pod>.json beside a run's samples.ndjson (a
// `benchwright run` results directory, an artifact-store prefix).
type MonitorSource interface {
	// MonitorFiles hands found the record files of each of inputs it
	// knows (inputs as Samples names them), or why they could not be
	// listed. A file's Open is called only within found. The error is one
	// that stops the listing as a whole (a store that does not open).
	MonitorFiles(ctx context.Context, inputs []string, found func(input string, files []MonitorFile, err error)) error
}

// MonitorFile is one stored record of a run.
type MonitorFile struct {
	// Name is its path below the run: monitor/<repetition>/<pod>.json.
	Name string
	Open func(ctx context.Context) (io.ReadCloser, error)
}
