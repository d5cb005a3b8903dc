package benchrun

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ownWrites remembers the resourceVersion of this process's last status
// write of each unfinished benchmark (by UID). A reconcile reads the
// benchmark from the cache, which may not show that write yet; only then
// must it read around the cache before it creates children (see
// machine.start). A benchmark this process never wrote is as new in the
// cache as any write of ours: the cache was filled after the process
// started, and only the leader writes.
type ownWrites struct{ rv sync.Map }

var writes ownWrites

// wrote records obj's resourceVersion after a status write.
func (w *ownWrites) wrote(obj client.Object) { w.rv.Store(obj.GetUID(), obj.GetResourceVersion()) }

// forget drops what is known of a benchmark: it finished, or the cache is
// known to be current.
func (w *ownWrites) forget(uid types.UID) { w.rv.Delete(uid) }

// behind tells whether the cache's copy of obj may predate a write of ours.
func (w *ownWrites) behind(obj client.Object) bool {
	rv, ok := w.rv.Load(obj.GetUID())
	return ok && rv != obj.GetResourceVersion()
}
