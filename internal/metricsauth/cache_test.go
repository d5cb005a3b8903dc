package metricsauth

import (
	"fmt"
	"testing"
	"time"
)

func TestCacheKeepsAnAnswerUntilItExpires(t *testing.T) {
	c := newCache[bool](4)
	t0 := time.Unix(1000, 0)
	c.put("k", true, t0, time.Minute)
	if v, ok := c.get("k", t0.Add(59*time.Second)); !ok || !v {
		t.Errorf("at 59s: %v %v, want true true", v, ok)
	}
	if _, ok := c.get("k", t0.Add(time.Minute)); ok {
		t.Error("at 60s: still cached, want expired")
	}
	if _, ok := c.get("other", t0); ok {
		t.Error("a key never put: cached")
	}
}

func TestFullCacheDropsTheExpiredFirst(t *testing.T) {
	c := newCache[int](3)
	t0 := time.Unix(1000, 0)
	c.put("old", 1, t0, time.Second)
	c.put("a", 2, t0, time.Hour)
	c.put("b", 3, t0, time.Hour)
	later := t0.Add(time.Minute)
	c.put("c", 4, later, time.Hour)
	for _, k := range []string{"a", "b", "c"} {
		if _, ok := c.get(k, later); !ok {
			t.Errorf("%s dropped; only the expired entry should go", k)
		}
	}
	if len(c.entries) != 3 {
		t.Errorf("%d entries, want 3", len(c.entries))
	}
}

func TestCacheNeverHoldsMoreThanItsSize(t *testing.T) {
	c := newCache[bool](16)
	t0 := time.Unix(1000, 0)
	for i := range 1000 {
		c.put(fmt.Sprint("token-", i), false, t0, time.Hour)
		if len(c.entries) > 16 {
			t.Fatalf("after %d puts: %d entries, want at most 16", i+1, len(c.entries))
		}
	}
}

func TestBearerToken(t *testing.T) {
	for header, want := range map[string]string{
		"Bearer abc":     "abc",
		"bearer abc":     "abc",
		"  Bearer  abc ": "abc",
		"Bearer":         "",
		"Bearer ":        "",
		"Basic abc":      "",
		"abc":            "",
		"":               "",
	} {
		got, ok := bearerToken(header)
		if got != want || ok != (want != "") {
			t.Errorf("bearerToken(%q) = %q, %v; want %q, %v", header, got, ok, want, want != "")
		}
	}
}
