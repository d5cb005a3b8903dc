package benchrun

import "context"

// collectors is how many benchmarks, of any kind, read and store their
// output at once: each may hold up to podlogs.MaxLogBytes of a log and
// results.MaxRunSamples samples, about 200 MB at worst, and the manager's
// memory limit is 512 MiB. Two keep the worst case under it while one slow
// log read does not hold up every other collection.
const collectors = 2

var collecting = make(chan struct{}, collectors)

// Collecting waits for a turn to collect a repetition's output; release
// ends it.
func Collecting(ctx context.Context) (release func(), err error) {
	select {
	case collecting <- struct{}{}:
		return func() { <-collecting }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
