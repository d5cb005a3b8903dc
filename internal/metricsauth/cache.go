package metricsauth

import (
	"sync"
	"time"
)

// cache holds answers until they expire, at most size of them.
type cache[V any] struct {
	mu      sync.Mutex
	size    int
	entries map[string]entry[V]
}

type entry[V any] struct {
	value   V
	expires time.Time
}

func newCache[V any](size int) *cache[V] {
	return &cache[V]{size: size, entries: map[string]entry[V]{}}
}

// get is key's value unless it expired by now.
func (c *cache[V]) get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.value, true
}

// put keeps value for key for ttl from now. A full cache first drops what
// expired, then, if nothing did, everything: answers are cheap to ask again.
func (c *cache[V]) put(key string, value V, now time.Time, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.size {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.size {
			clear(c.entries)
		}
	}
	c.entries[key] = entry[V]{value: value, expires: now.Add(ttl)}
}
