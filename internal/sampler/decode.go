package sampler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Series is a sampler's log read back: what the manager stores and
// summarises.
type Series struct {
	Header Header  `json:"header"`
	Points []Point `json:"points"`
	Notes  []Note  `json:"notes,omitempty"`
	// Problems are what the reader refused or found wrong: it is what makes
	// a series incomplete.
	Problems []string `json:"problems,omitempty"`
}

// Bounds on what Decode keeps of one log, which it reads as hostile input
// (the benchmark's image can run a container of the sampler's name): far
// above what the sampler writes within DefaultBudget.
const (
	MaxPoints   = 32768
	maxNotes    = 1024
	maxNoteLen  = 512
	maxProblems = 32
	maxLineLen  = 256 << 10
)

// Decode reads a sampler's log. A line that is not the series, or breaks
// its bounds, is skipped and counted in Problems; the series keeps what is
// sound. A log without a header has no series (ok false).
func Decode(log []byte) (Series, bool) {
	var s Series
	var header bool
	skipped := map[string]int{}
	problem := func(why string) { skipped[why]++ }
	for line := range bytes.Lines(log) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > maxLineLen {
			problem("a line longer than 256 KiB")
			continue
		}
		switch {
		case bytes.HasPrefix(line, []byte(HeaderPrefix)):
			if header {
				problem("a second header (the sampler restarted): the points after it are the restarted sampler's")
				continue
			}
			h, err := decodeHeader(line[len(HeaderPrefix):])
			if err != nil {
				s.Problems = append(s.Problems, "the header: "+err.Error())
				return s, false
			}
			s.Header, header = h, true
		case !header:
			continue
		case bytes.HasPrefix(line, []byte(PointPrefix)):
			if why := s.addPoint(line[len(PointPrefix):]); why != "" {
				problem(why)
			}
		case bytes.HasPrefix(line, []byte(NotePrefix)):
			if why := s.addNote(line[len(NotePrefix):]); why != "" {
				problem(why)
			}
		}
	}
	s.addProblems(skipped)
	return s, header
}

// addPoint keeps a point of the series, or says why it does not.
func (s *Series) addPoint(data []byte) string {
	if len(s.Points) >= MaxPoints {
		return fmt.Sprintf("points beyond the %d kept", MaxPoints)
	}
	p, err := decodePoint(data, s.Header)
	if err != nil {
		return "a point that " + err.Error()
	}
	if n := len(s.Points); n > 0 && p.T <= s.Points[n-1].T {
		return "a point not after the one before"
	}
	s.Points = append(s.Points, p)
	return ""
}

// addNote keeps a note of the series, or says why it does not.
func (s *Series) addNote(data []byte) string {
	var n Note
	if err := strictJSON(data, &n); err != nil || len(n.Note) > maxNoteLen || !printable(n.Note) {
		return "a note that is not a short line of text"
	}
	if len(s.Notes) >= maxNotes {
		return "notes beyond the 1024 kept"
	}
	s.Notes = append(s.Notes, n)
	return ""
}

// addProblems counts what was skipped, why by why, within maxProblems.
func (s *Series) addProblems(skipped map[string]int) {
	for _, why := range slices.Sorted(maps.Keys(skipped)) {
		if len(s.Problems) < maxProblems {
			s.Problems = append(s.Problems, fmt.Sprintf("%d× %s", skipped[why], why))
		}
	}
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

func decodeHeader(data []byte) (Header, error) {
	var h Header
	if err := strictJSON(data, &h); err != nil {
		return Header{}, fmt.Errorf("not the sampler's JSON: %w", err)
	}
	if h.V != Version {
		return Header{}, fmt.Errorf("version %d, not %d", h.V, Version)
	}
	if !(h.Interval > 0 && h.Interval <= 3600) {
		return Header{}, fmt.Errorf("interval %g s is not in (0, 3600]", h.Interval)
	}
	want := fields()
	for k, v := range want {
		if !slices.Equal(h.Fields[k], v) {
			return Header{}, fmt.Errorf("fields of %q are %q, not %q", k, h.Fields[k], v)
		}
	}
	h.Fields = want
	if len(h.Volumes) > maxDisks || len(h.Missing) > 16 {
		return Header{}, fmt.Errorf("too many volumes or missing sources")
	}
	for k, v := range h.Volumes {
		if len(k) > 4096 || len(v) > maxNoteLen || !printable(k) || !printable(v) {
			return Header{}, fmt.Errorf("a volume that is not a short path and device")
		}
	}
	for _, m := range h.Missing {
		if len(m) > maxNoteLen || !printable(m) {
			return Header{}, fmt.Errorf("a missing source that is not a short line of text")
		}
	}
	return h, nil
}

// decodePoint checks a point's shape and ranges: every slice its fields'
// length, shares within 0-100, rates finite and not negative, names fit to
// be keys.
func decodePoint(data []byte, h Header) (Point, error) {
	var p Point
	if err := strictJSON(data, &p); err != nil {
		return Point{}, fmt.Errorf("is not the sampler's JSON")
	}
	if p.T < h.Start || !(p.Dt > 0 && p.Dt <= 100*h.Interval+60) {
		return Point{}, fmt.Errorf("is out of the series' time")
	}
	pct := func(v []float64, n int) bool { return v == nil || len(v) == n && all(v, 0, 100.5) }
	if !pct(p.CPU, len(CPUFields)) || len(p.Cores) > maxCores {
		return Point{}, fmt.Errorf("has CPU shares out of range")
	}
	for _, c := range p.Cores {
		if !pct(c, len(CoreFields)) {
			return Point{}, fmt.Errorf("has core shares out of range")
		}
	}
	if p.Mem != nil && (len(p.Mem) != len(MemFields) || !all(p.Mem, 0, math.MaxFloat64)) {
		return Point{}, fmt.Errorf("has memory figures out of range")
	}
	if p.PSI != nil && (len(p.PSI) != len(PSIFields) || !all(p.PSI, -1, 100)) {
		return Point{}, fmt.Errorf("has pressure shares out of range")
	}
	if !rates(p.Disks, len(DiskFields)) || !rates(p.Nets, len(NetFields)) {
		return Point{}, fmt.Errorf("has disk or network rates out of range")
	}
	for _, d := range p.Disks {
		if d[diskUtil] > 100.5 {
			return Point{}, fmt.Errorf("has a disk utilisation over 100%%")
		}
	}
	if p.Pod != nil && (len(p.Pod) != len(PodFields) || !all(p.Pod, 0, math.MaxFloat64)) {
		return Point{}, fmt.Errorf("has pod figures out of range")
	}
	return p, nil
}

func rates(m map[string][]float64, n int) bool {
	if len(m) > maxDisks {
		return false
	}
	for k, v := range m {
		if !validName(k) || len(v) != n || !all(v, 0, math.MaxFloat64) {
			return false
		}
	}
	return true
}

func all(v []float64, lo, hi float64) bool {
	for _, x := range v {
		if !(x >= lo && x <= hi) {
			return false
		}
	}
	return true
}

// printable is text without control characters, which a report shows.
func printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\uFFFD' })
}
