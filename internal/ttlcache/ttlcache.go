// Package ttlcache holds answers (token reviews, access checks) for a while,
// a bounded number of them.
package ttlcache

import (
	"sync"
	"time"
)

// Cache holds answers until they expire, at most size of them.
type Cache[V any] struct {
	mu      sync.Mutex
	size    int
	entries map[string]entry[V]
}

type entry[V any] struct {
	value   V
	expires time.Time
}

// New is an empty cache of at most size answers.
func New[V any](size int) *Cache[V] {
	return &Cache[V]{size: size, entries: map[string]entry[V]{}}
}

// Get is key's value unless it expired by now.
func (c *Cache[V]) Get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.value, true
}

// Put keeps value for key for ttl from now. A full cache first drops what
// expired, then, if nothing did, everything: answers are cheap to ask again.
func (c *Cache[V]) Put(key string, value V, now time.Time, ttl time.Duration) {
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
