package ttlcache

import (
	"fmt"
	"testing"
	"time"
)

func TestCacheKeepsAnAnswerUntilItExpires(t *testing.T) {
	c := New[bool](4)
	t0 := time.Unix(1000, 0)
	c.Put("k", true, t0, time.Minute)
	if v, ok := c.Get("k", t0.Add(59*time.Second)); !ok || !v {
		t.Errorf("at 59s: %v %v, want true true", v, ok)
	}
	if _, ok := c.Get("k", t0.Add(time.Minute)); ok {
		t.Error("at 60s: still cached, want expired")
	}
	if _, ok := c.Get("other", t0); ok {
		t.Error("a key never put: cached")
	}
}

func TestFullCacheDropsTheExpiredFirst(t *testing.T) {
	c := New[int](3)
	t0 := time.Unix(1000, 0)
	c.Put("old", 1, t0, time.Second)
	c.Put("a", 2, t0, time.Hour)
	c.Put("b", 3, t0, time.Hour)
	later := t0.Add(time.Minute)
	c.Put("c", 4, later, time.Hour)
	for _, k := range []string{"a", "b", "c"} {
		if _, ok := c.Get(k, later); !ok {
			t.Errorf("%s dropped; only the expired entry should go", k)
		}
	}
	if len(c.entries) != 3 {
		t.Errorf("%d entries, want 3", len(c.entries))
	}
}

func TestCacheNeverHoldsMoreThanItsSize(t *testing.T) {
	c := New[bool](16)
	t0 := time.Unix(1000, 0)
	for i := range 1000 {
		c.Put(fmt.Sprint("token-", i), false, t0, time.Hour)
		if len(c.entries) > 16 {
			t.Fatalf("after %d puts: %d entries, want at most 16", i+1, len(c.entries))
		}
	}
}
