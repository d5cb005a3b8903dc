package nodefacts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// LinePrefix starts the facts' line in the reader's log.
const LinePrefix = "benchwright-nodefacts: "

// MaxMessage is the most of a container's termination message the kubelet
// keeps (the last bytes of the file): a longer facts line would lose its
// start, so the step does not write it there.
const MaxMessage = 4 << 10

// maxLine bounds the line ParseLine reads: a node's facts are a few KiB.
const maxLine = 64 << 10

// ErrNoFacts is returned by ParseLine for a log without the facts' line.
var ErrNoFacts = errors.New("the log has no node facts line")

// Line is the facts as one log line (without the newline).
func Line(f Facts) string {
	b, err := json.Marshal(f)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return LinePrefix + string(b)
}

// ParseLine returns the facts of the last facts line of a log.
func ParseLine(log []byte) (Facts, error) {
	var (
		f     Facts
		found bool
	)
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 4<<10), maxLine)
	prefix := []byte(LinePrefix)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), prefix)
		if !ok {
			continue
		}
		var g Facts
		dec := json.NewDecoder(bytes.NewReader(rest))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&g); err != nil {
			return Facts{}, fmt.Errorf("the node facts line is not the facts' JSON: %w", err)
		}
		if err := g.check(); err != nil {
			return Facts{}, err
		}
		if len(g.Mitigations) == 0 {
			g.Mitigations = nil // "{}" and an absent field are the same facts
		}
		f, found = g, true
	}
	if err := sc.Err(); err != nil {
		return Facts{}, fmt.Errorf("reading the node facts: %w", err)
	}
	if !found {
		return Facts{}, ErrNoFacts
	}
	return f, nil
}

// check refuses figures no node reports.
func (f Facts) check() error {
	for _, v := range []float64{f.CPUMHz, f.ScalingMaxMHz} {
		if v < 0 || math.IsNaN(v) || v > 1e6 {
			return fmt.Errorf("the node facts give a frequency of %v MHz", v)
		}
	}
	if f.MTU < 0 || f.MTU > 1<<20 {
		return fmt.Errorf("the node facts give an MTU of %d", f.MTU)
	}
	if len(f.Mitigations) > 256 {
		return fmt.Errorf("the node facts list %d vulnerabilities", len(f.Mitigations))
	}
	return nil
}
