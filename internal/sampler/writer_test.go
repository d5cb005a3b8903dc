package sampler

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeClock moves forward by exactly the time each wait asks for.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// runWriter samples a fake node for the given number of waits.
func runWriter(t *testing.T, budget int64, waits int) []byte {
	t.Helper()
	root := t.TempDir()
	fakeRoot(t, root, map[string]string{
		"proc/stat":      "cpu 1 0 1 10 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0\n",
		"proc/meminfo":   "MemTotal: 1024 kB\nMemAvailable: 512 kB\n",
		"proc/net/dev":   netHeader + "eth0: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n",
		"proc/diskstats": "",
	})
	clock := &fakeClock{now: time.UnixMilli(1_700_000_000_000)}
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	n := 0
	w := &Writer{Out: &out, Source: Source{Root: root}, Interval: time.Second, Budget: budget, Now: clock.Now,
		After: func(d time.Duration) <-chan time.Time {
			n++
			if n > waits {
				cancel()
				return nil
			}
			return clock.After(d)
		}}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestWriterDoublesItsIntervalWithinTheBudget(t *testing.T) {
	const budget = 256 << 10
	// Ten thousand intervals of a second: far more than fits at a second.
	log := runWriter(t, budget, 10000)
	lines := bytes.Count(log, []byte("\n"))
	if used := int64(len(log) + lines*kubeletLineOverhead); used > budget {
		t.Fatalf("wrote %d bytes with the kubelet's prefixes, over the budget of %d", used, budget)
	}
	s, ok := Decode(log)
	if !ok || len(s.Problems) > 0 {
		t.Fatalf("Decode: ok %v, problems %q", ok, s.Problems)
	}
	doubled := 0
	for _, n := range s.Notes {
		if strings.HasPrefix(n.Note, "interval doubled") {
			doubled++
		}
	}
	if doubled < 4 {
		t.Errorf("the interval doubled %d times, want at least 4: %v", doubled, s.Notes)
	}
	// Each step lasts about as long as the first, each point no shorter
	// than the one before, until the budget is spent.
	first, last := s.Points[0], s.Points[len(s.Points)-1]
	firstStep := time.Duration(s.Notes[0].T-first.T) * time.Millisecond
	if span := time.Duration(last.T-first.T) * time.Millisecond; span < time.Duration(doubled)*firstStep {
		t.Errorf("the points span %s, less than %d steps of %s", span, doubled, firstStep)
	}
	if !slices.ContainsFunc(s.Notes, func(n Note) bool { return strings.HasPrefix(n.Note, "budget of 262144 bytes spent") }) {
		t.Errorf("no note that the budget is spent: %v", s.Notes)
	}
	for i := 1; i < len(s.Points); i++ {
		if s.Points[i].Dt < s.Points[i-1].Dt {
			t.Fatalf("point %d covers %g s after one of %g s", i, s.Points[i].Dt, s.Points[i-1].Dt)
		}
	}
	if got := s.Notes[len(s.Notes)-1].Note; got != "stopped" {
		t.Errorf("last note %q, want stopped", got)
	}
}

func TestWriterAtOneSecondKeepsEveryPointOfAShortRun(t *testing.T) {
	s, ok := Decode(runWriter(t, DefaultBudget, 100))
	if !ok || len(s.Points) != 100 {
		t.Fatalf("ok %v, %d points; want 100", ok, len(s.Points))
	}
	if s.Header.Interval != 1 || s.Points[0].Mem == nil || s.Points[0].Nets["eth0"] == nil {
		t.Errorf("header %+v, first point %+v", s.Header, s.Points[0])
	}
	if len(s.Header.Missing) == 0 {
		t.Errorf("no missing sources named, but the fake node has no /proc/pressure")
	}
}
