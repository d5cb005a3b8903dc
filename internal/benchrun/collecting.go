package benchrun

import "context"

// collecting lets one benchmark at a time, of any kind, read and store its
// output: each may hold up to podlogs.MaxLogBytes of a log and
// results.MaxRunSamples samples, about 200 MB at worst, and the manager's
// memory limit is 512 MiB.
var collecting = make(chan struct{}, 1)

// Collecting waits for the turn to collect a repetition's output; release
// ends it.
func Collecting(ctx context.Context) (release func(), err error) {
	select {
	case collecting <- struct{}{}:
		return func() { <-collecting }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
