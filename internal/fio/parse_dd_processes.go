package fio

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// ddProcessMarker is the line ddGroupScript prints before each process's output.
var ddProcessMarker = regexp.MustCompile(`^==> benchwright dd process (\d+) <==$`)

// ParseDDProcesses reads the output of n dd processes run by ddGroupScript: one
// result per process, in process order (the last summary each printed). A
// process that printed a dd diagnostic yields a *DDError naming it; a missing
// or repeated process, or one without a summary, is an error.
func ParseDDProcesses(data []byte, n int) ([]DDResult, error) {
	sections := make([][]byte, 0, n)
	current := -1
	for line := range strings.Lines(string(data)) {
		if m := ddProcessMarker.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
			i, err := strconv.Atoi(m[1])
			if err != nil || i != len(sections) || i >= n {
				return nil, fmt.Errorf("dd process %s reported out of order (%d of %d expected next)", m[1], len(sections), n)
			}
			sections = append(sections, nil)
			current = i
			continue
		}
		if current >= 0 {
			sections[current] = append(sections[current], line...)
		}
	}
	if len(sections) != n {
		return nil, fmt.Errorf("the output holds %d of the %d dd processes: %w", len(sections), n, results.ErrNoSamples)
	}
	out := make([]DDResult, n)
	var total int64
	for i, sec := range sections {
		got, err := ParseDD(sec)
		var ddErr *DDError
		switch {
		case errors.As(err, &ddErr):
			return nil, &DDError{Line: fmt.Sprintf("process %d: %s", i, ddErr.Line)}
		case err != nil:
			return nil, fmt.Errorf("dd process %d: %w", i, err)
		}
		out[i] = got[len(got)-1]
		if total += out[i].Bytes; total < 0 {
			return nil, fmt.Errorf("dd processes 0 to %d copied more than %d bytes together: not a real count", i, math.MaxInt64)
		}
	}
	return out, nil
}

// DDAggregate is what n processes copied together: all their bytes, in the
// time of the slowest. The processes start together, so that is the time from
// the common start to the last finish.
func DDAggregate(per []DDResult) DDResult {
	var agg DDResult
	for _, r := range per {
		agg.Bytes += r.Bytes
		agg.Seconds = max(agg.Seconds, r.Seconds)
	}
	return agg
}

// DDTestSamples parses the output of one dd test as DDArgs ran it. One process:
// each summary's <direction>_bw, _bytes and _seconds. Several: those figures of
// DDAggregate, and each process's own as <direction>_bw_process,
// _bytes_process and _seconds_process labelled process=i (averaged, not added,
// over processes when summarised). Every sample is labelled with the test's
// block size, flags and process count.
func DDTestSamples(t benchv1.DDTest, log []byte) ([]results.Sample, error) {
	n := int(t.ProcessesOrDefault())
	dir := string(t.Operation)
	var out []results.Sample
	if n == 1 {
		parsed, err := ParseDD(log)
		if err != nil {
			return nil, err
		}
		for _, p := range parsed {
			out = append(out, DDSamples(p, t.Name, dir)...)
		}
	} else {
		per, err := ParseDDProcesses(log, n)
		if err != nil {
			return nil, err
		}
		out = DDSamples(DDAggregate(per), t.Name, dir)
		for i, p := range per {
			for _, s := range DDSamples(p, t.Name, dir) {
				s.Metric += "_process"
				s.Labels[LabelProcess] = strconv.Itoa(i)
				out = append(out, s)
			}
		}
	}
	for i := range out {
		out[i].Labels[results.LabelBlockSize] = t.BlockSize
		out[i].Labels["flags"] = t.OFlag + t.IFlag
		out[i].Labels[results.LabelProcesses] = strconv.Itoa(n)
	}
	return out, nil
}

// LabelProcess is the index of the dd process a per-process sample is of.
const LabelProcess = "process"
