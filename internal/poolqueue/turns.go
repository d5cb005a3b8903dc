package poolqueue

import (
	"context"
	"sort"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Turns keeps each pool's queue strict when several workers decide at once.
// Every worker of a process reads the same cache, but a start shows there
// only once its status write comes back through the watch: until then a
// worker that reads a benchmark the first one did not see yet (created in
// the same second, sorting before it) would take the pool too. So each
// pool's decisions are made one at a time, and the benchmark this process
// let start counts as holding the pool until the cache shows it started or
// gone.
type Turns struct {
	mu    sync.Mutex
	pools map[benchv1.PoolName]*turn
}

// turn is one pool's lock and the benchmark last let start on it.
type turn struct {
	mu     sync.Mutex
	holder string // Entry.ID; "" when the cache shows every start
}

// NewTurns is the one Turns of a process's benchmark reconcilers.
func NewTurns() *Turns { return &Turns{pools: map[benchv1.PoolName]*turn{}} }

func (t *Turns) of(pool benchv1.PoolName) *turn {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pools[pool]
	if !ok {
		p = &turn{}
		t.pools[pool] = p
	}
	return p
}

// Blocked is Blocked of the package, decided under the pool's lock with the
// benchmark last let start counted as started; when nothing blocks obj, it
// becomes that benchmark. The caller starts it (or retries until it does).
func (t *Turns) Blocked(ctx context.Context, c client.Reader, obj client.Object, kind string, p benchv1.Placement) (*Wait, error) {
	if p.Pool == "" {
		return blocked(ctx, c, obj, kind, p, nil)
	}
	tn := t.of(p.Pool)
	tn.mu.Lock()
	defer tn.mu.Unlock()
	w, err := blocked(ctx, c, obj, kind, p, tn.held)
	if err == nil && w == nil {
		tn.holder = kind + "/" + obj.GetNamespace() + "/" + obj.GetName()
	}
	return w, err
}

// held counts the holder as started while the cache does not show it yet,
// and forgets it once the cache shows it started, finished or gone.
func (tn *turn) held(queue []Entry) []Entry {
	if tn.holder == "" {
		return queue
	}
	for i := range queue {
		if queue[i].ID() != tn.holder {
			continue
		}
		if queue[i].Started {
			break
		}
		queue[i].Started = true
		sortQueue(queue)
		return queue
	}
	tn.holder = ""
	return queue
}

// sortQueue orders a pool's queue: started first, then by creation time,
// then by kind, namespace and name.
func sortQueue(q []Entry) {
	sort.SliceStable(q, func(i, j int) bool {
		a, b := q[i], q[j]
		if a.Started != b.Started {
			return a.Started
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.ID() < b.ID()
	})
}
