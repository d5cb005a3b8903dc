package benchrun

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// collectors is how many benchmarks, of any kind, read and store their
// output at once, finished or failed (machine.collect, machine.failure): each may hold up to podlogs.MaxLogBytes of a log and
// results.MaxRunSamples samples, about 200 MB at worst, and the manager's
// memory limit is 512 MiB. Two keep the worst case under it while one slow
// log read does not hold up every other collection.
const collectors = 2

// collectRetry is when a benchmark that found every turn taken looks again
// if no finished collection woke it first.
const collectRetry = 10 * time.Second

// turnsToCollect hands out the collectors' turns. A benchmark that finds
// them all taken does not hold its worker (which would keep new benchmarks
// from starting): it gets in line, and a freed turn wakes the first in line
// through its controller's channel. A wake-up can be lost (a full channel,
// a benchmark deleted meanwhile): then every waiter still looks again after
// collectRetry, so a turn is never left unused for longer.
type turnsToCollect struct {
	mu      sync.Mutex
	free    int
	waiting []collectWaiter
	queued  map[types.UID]bool
}

// collectWaiter is a benchmark waiting for a turn and its controller's
// wake-up channel.
type collectWaiter struct {
	obj  client.Object
	wake chan<- event.GenericEvent
}

// collecting is the one line of the process.
var collecting = newTurnsToCollect(collectors)

func newTurnsToCollect(n int) *turnsToCollect {
	return &turnsToCollect{free: n, queued: map[types.UID]bool{}}
}

// take gives obj a turn if one is free (ok; release ends it), or puts obj
// in line to be woken through wake.
func (t *turnsToCollect) take(obj client.Object, wake chan<- event.GenericEvent) (release func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.free > 0 {
		t.free--
		var once sync.Once
		return func() { once.Do(t.release) }, true
	}
	if !t.queued[obj.GetUID()] {
		t.queued[obj.GetUID()] = true
		t.waiting = append(t.waiting, collectWaiter{obj: obj, wake: wake})
	}
	return nil, false
}

// release frees a turn and wakes the first in line, who leaves the line.
func (t *turnsToCollect) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.free++
	for len(t.waiting) > 0 {
		w := t.waiting[0]
		t.waiting = t.waiting[1:]
		delete(t.queued, w.obj.GetUID())
		if w.wake == nil {
			continue
		}
		select {
		case w.wake <- event.GenericEvent{Object: w.obj}:
			return
		default: // full: it looks again after collectRetry
		}
	}
}
