package sampler

import (
	"encoding/json"
	"fmt"
	"time"
)

// Bounds on what ReadRecord keeps of a stored record beyond its series'.
const (
	maxPhases      = 4096
	maxPhaseLabels = 16
	maxPodLen      = 253
)

// ReadRecord reads a stored record (monitor/<repetition>/<pod>.json) back
// as hostile input, by Decode's rules: what is not a record, or a header
// Decode would refuse, is an error; points and notes Decode would skip are
// left out and counted in Problems, as Decode counts them. Names, tests and
// problems are short lines of text.
func ReadRecord(data []byte) (Record, error) {
	var raw struct {
		Pod      string  `json:"pod"`
		Node     string  `json:"node"`
		Phases   []Phase `json:"phases"`
		Restarts int32   `json:"restarts"`
		Series   struct {
			Header   json.RawMessage   `json:"header"`
			Points   []json.RawMessage `json:"points"`
			Notes    []json.RawMessage `json:"notes"`
			Problems []string          `json:"problems"`
		} `json:"series"`
	}
	if err := strictJSON(data, &raw); err != nil {
		return Record{}, fmt.Errorf("not a sampler record: %w", err)
	}
	if !shortText(raw.Pod, maxPodLen) || len(raw.Node) > maxPodLen || !printable(raw.Node) || raw.Restarts < 0 {
		return Record{}, fmt.Errorf("not a sampler record: its pod, node or restart count is not one")
	}
	if len(raw.Phases) > maxPhases {
		return Record{}, fmt.Errorf("%d phases, more than %d", len(raw.Phases), maxPhases)
	}
	rec := Record{Pod: raw.Pod, Node: raw.Node, Restarts: raw.Restarts, Phases: raw.Phases}
	for i, ph := range rec.Phases {
		if err := checkPhase(ph); err != nil {
			return Record{}, fmt.Errorf("phase %d: %w", i+1, err)
		}
		rec.Phases[i].Start, rec.Phases[i].End = time.UnixMilli(ph.StartMs), time.UnixMilli(ph.EndMs)
	}
	h, err := decodeHeader(raw.Series.Header)
	if err != nil {
		return Record{}, fmt.Errorf("the header: %w", err)
	}
	s := Series{Header: h}
	for _, p := range raw.Series.Problems {
		if len(s.Problems) < maxProblems {
			if !shortText(p, maxNoteLen) {
				p = "a problem that is not a short line of text"
			}
			s.Problems = append(s.Problems, p)
		}
	}
	skipped := map[string]int{}
	for _, p := range raw.Series.Points {
		if why := s.addPoint(p); why != "" {
			skipped[why]++
		}
	}
	for _, n := range raw.Series.Notes {
		if why := s.addNote(n); why != "" {
			skipped[why]++
		}
	}
	s.addProblems(skipped)
	rec.Series = s
	return rec, nil
}

// checkPhase checks a stored phase: a short test name, an end not before
// its start, few short labels.
func checkPhase(ph Phase) error {
	if len(ph.Test) > maxNoteLen || !printable(ph.Test) {
		return fmt.Errorf("a test name that is not a short line of text")
	}
	if ph.EndMs < ph.StartMs {
		return fmt.Errorf("ends before it starts")
	}
	if len(ph.Labels) > maxPhaseLabels {
		return fmt.Errorf("more than %d labels", maxPhaseLabels)
	}
	for k, v := range ph.Labels {
		if !shortText(k, maxNoteLen) || len(v) > maxNoteLen || !printable(v) {
			return fmt.Errorf("a label that is not a short line of text")
		}
	}
	return nil
}

// shortText is a non-empty printable string of at most n bytes.
func shortText(s string, n int) bool { return s != "" && len(s) <= n && printable(s) }
