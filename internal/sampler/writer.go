package sampler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// Prefixes of the series' lines in the sampler's log.
const (
	HeaderPrefix = "bw-sampler: "
	PointPrefix  = "bw-sample: "
	NotePrefix   = "bw-sampler-note: "
)

// Version is the series format's version, in its header.
const Version = 1

// DefaultBudget is what the sampler writes at most, counting the kubelet's
// own prefix of each log line: below the kubelet's default log rotation
// size (containerLogMaxSize, 10 MiB), past which the manager could not read
// the series from its start. Each time half of what is left is spent the
// interval doubles, so each step lasts as long as the first: for a 2-core
// node (about 450 bytes a point) 2.5 hours at 1 s, then 2.5 hours at 2 s,
// and so on for about 35 hours in all, after which the series ends with a
// note and the benchmark goes on.
const DefaultBudget = 8 << 20

// kubeletLineOverhead is the kubelet's prefix of a log line (CRI log
// format: an RFC 3339 time with nanoseconds, the stream and a tag).
const kubeletLineOverhead = 48

// Header opens a series.
type Header struct {
	V int `json:"v"`
	// Start is the first reading, Unix milliseconds; Interval the step asked
	// for, in seconds.
	Start    int64   `json:"start"`
	Interval float64 `json:"interval"`
	Budget   int64   `json:"budget"`
	// Fields names each Point slice's fields.
	Fields map[string][]string `json:"fields"`
	// Volumes are the devices behind the benchmark's volumes: mount path ->
	// device, or why there is none.
	Volumes map[string]string `json:"volumes,omitempty"`
	// Missing names the sources that could not be read.
	Missing []string `json:"missing,omitempty"`
}

// Note marks an event of the series: the interval doubled, a device came or
// went, a source went missing, the sampler stopped.
type Note struct {
	T    int64  `json:"t"`
	Note string `json:"note"`
}

// Writer is the sampler's loop: one Point per Interval to Out, within Budget
// bytes.
type Writer struct {
	Out      io.Writer
	Source   Source
	Interval time.Duration
	Budget   int64
	Volumes  map[string]string
	// Now and After are the clock (tests replace them).
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
}

// fields is every slice's field names, as the header lists them.
func fields() map[string][]string {
	return map[string][]string{"cpu": CPUFields, "cores": CoreFields, "mem": MemFields, "psi": PSIFields, "disk": DiskFields, "net": NetFields, "pod": PodFields}
}

// Run samples until ctx ends, then writes the last, partial interval and a
// closing note. It returns an error only when Out fails.
func (w *Writer) Run(ctx context.Context) error {
	now, after := w.Now, w.After
	if now == nil {
		now = time.Now
	}
	if after == nil {
		after = time.After
	}
	interval, budget := w.Interval, w.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	s := &series{out: w.Out, budget: budget, threshold: budget / 2}
	prev := w.Source.read(now())
	h := Header{V: Version, Start: prev.at.UnixMilli(), Interval: interval.Seconds(), Budget: budget, Fields: fields(), Volumes: w.Volumes, Missing: prev.missing}
	if err := s.write(HeaderPrefix, h); err != nil {
		return err
	}
	next := prev.at.Add(interval)
	for {
		stopped := false
		select {
		case <-ctx.Done():
			stopped = true
		case <-after(max(0, next.Sub(now()))):
		}
		if s.full && !stopped {
			continue // the budget is spent: wait for the end
		}
		cur := w.Source.read(now())
		if err := s.changes(prev, cur); err != nil {
			return err
		}
		if !stopped || cur.at.Sub(prev.at) >= interval/10 {
			if err := s.point(point(prev, cur)); err != nil {
				return err
			}
		}
		if stopped {
			return s.note(cur.at, "stopped")
		}
		if s.used > s.threshold && !s.full {
			interval *= 2
			s.threshold = s.used + (s.budget-s.used)/2
			if err := s.note(cur.at, fmt.Sprintf("interval doubled to %s: %d of the %d bytes of the budget used", interval, s.used, s.budget)); err != nil {
				return err
			}
		}
		prev = cur
		for next = next.Add(interval); !next.After(cur.at); next = next.Add(interval) {
		}
	}
}

// series writes the lines and counts them against the budget.
type series struct {
	out          io.Writer
	budget, used int64
	threshold    int64
	full         bool
}

// noteReserve is kept for the notes after the budget is spent.
const noteReserve = 4 << 10

func (s *series) write(prefix string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	line := append([]byte(prefix), data...)
	line = append(line, '\n')
	s.used += int64(len(line)) + kubeletLineOverhead
	_, err = s.out.Write(line)
	return err
}

func (s *series) point(p Point) error {
	if s.full {
		return nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if s.used+int64(len(PointPrefix)+len(data)+1+kubeletLineOverhead) > s.budget-noteReserve {
		s.full = true
		return s.note(time.UnixMilli(p.T), fmt.Sprintf("budget of %d bytes spent: no more points", s.budget))
	}
	return s.write(PointPrefix, json.RawMessage(data))
}

func (s *series) note(at time.Time, text string) error {
	if s.used+int64(len(text))+128 > s.budget {
		return nil
	}
	return s.write(NotePrefix, Note{T: at.UnixMilli(), Note: text})
}

// changes notes the sources that went missing or came back and the disks
// and interfaces that came or went.
func (s *series) changes(prev, cur counters) error {
	var notes []string
	if !slices.Equal(prev.missing, cur.missing) {
		for _, m := range cur.missing {
			if !slices.Contains(prev.missing, m) {
				notes = append(notes, "missing "+m)
			}
		}
		for _, m := range prev.missing {
			if !slices.Contains(cur.missing, m) {
				notes = append(notes, "back: "+m)
			}
		}
	}
	notes = append(notes, comings("disk", prev.disks, cur.disks)...)
	notes = append(notes, comings("interface", prev.nets, cur.nets)...)
	for _, n := range notes {
		if err := s.note(cur.at, n); err != nil {
			return err
		}
	}
	return nil
}

func comings[V any](what string, prev, cur map[string]V) []string {
	var notes []string
	for _, name := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := cur[name]; !ok && cur != nil {
			notes = append(notes, fmt.Sprintf("%s %s is gone", what, name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cur)) {
		if _, ok := prev[name]; !ok && prev != nil {
			notes = append(notes, fmt.Sprintf("%s %s appeared", what, name))
		}
	}
	return notes
}
