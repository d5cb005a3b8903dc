// Package fabtests reads the output of libfabric's fabtests (fi_msg_bw,
// fi_rma_bw, fi_rdm_tagged_bw, fi_msg_pingpong, fi_pingpong, ...) into
// benchwright's samples.
package fabtests

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// Metrics and units: fabtests' MB/sec is bytes per microsecond (10^6
// bytes/s), usec/xfer the time per transfer (one way, for the ping-pongs),
// Mxfers/sec millions of transfers per second.
const (
	MetricBandwidth   = "bandwidth"
	MetricLatency     = "latency"
	MetricMessageRate = "message_rate"
	unitBandwidth     = "MB/s"
	unitLatency       = "us"
	unitMessageRate   = "Mxfers/s"
)

// Labels of fabtests samples besides tool and msg_size.
const (
	LabelIterations = "iterations"
	// LabelRank is the [rank N] prefix a launcher put on each line.
	LabelRank = "rank"
)

var (
	// rankPrefixRE is the "[rank N] " a launcher puts before each line.
	rankPrefixRE = regexp.MustCompile(`^\[rank (\d+)\] ?`)
	// errorLineRE matches fabtests' FT_PRINTERR ("fi_getinfo(): common/shared.c:918,
	// ret=-61 (No data available)") and FT_ERR ("[error] fabtests:...").
	errorLineRE = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*\(\): \S+:\d+, ret=-?\d+ \(|\[error\] fabtests:)`)
	// sizeRE is size_str's notation: 1, 1.5k, 12k, 8m, 1.4g (powers of 1024).
	sizeRE = regexp.MustCompile(`^(\d+)(?:\.(\d))?([kmg]?)$`)
	// countRE is cnt_str's: 200, 20k, 3m, 1b (powers of 1000, truncated).
	countRE = regexp.MustCompile(`^(\d+)([kmb]?)$`)
)

// columns are the header names a table must have, in the order fabtests
// prints them; the ping-pong of util/pingpong.c counts "#sent" and "#ack"
// instead of "iters".
var (
	perfColumns     = []string{"bytes", "iters", "total", "time", "MB/sec", "usec/xfer", "Mxfers/sec"}
	pingpongColumns = []string{"bytes", "#sent", "#ack", "total", "time", "MB/sec", "usec/xfer", "Mxfers/sec"}
)

// ToolError is an error line fabtests printed (a failed fi_getinfo, a
// refused connection): the run failed, the output is not at fault.
type ToolError struct {
	Line int
	Text string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("fabtests reported an error on line %d: %q", e.Line, e.Text)
}

// Parse reads fabtests' result tables (either side's: the server prints one
// too) into samples of test: per row bandwidth (MB/s), latency (µs per
// transfer) and message_rate (Mxfers/s), labelled tool=fabtests, msg_size in
// bytes and iterations. A table with a leading "name" column is read the same.
// Lines a launcher prefixed with "[rank N] " are labelled rank=N. A second
// table from the same rank is a repetition (Repetition 1, 2, ...).
//
// Sizes are read as fabtests prints them: powers of 1024 with one decimal
// below 10 units (1.5k = 1536), exact for the sizes of -S all.
//
// Errors: empty input gives results.ErrNoSamples; an error line of fabtests
// (a failed fi_getinfo, a refused connection) is quoted; input without a
// result table is not fabtests output; a row cut off or with a figure that is
// not a number is an error naming the line.
func Parse(data []byte, test string) ([]results.Sample, error) {
	text := string(data)
	if strings.TrimSpace(text) == "" {
		return nil, results.ErrNoSamples
	}
	if test == "" {
		test = "fabtests"
	}
	type table struct {
		columns []string
		named   bool // a leading name column
		rep     int
	}
	tables := map[string]*table{} // by rank ("" without prefixes)
	started := map[string]int{}   // tables seen per rank
	var out []results.Sample
	lines := strings.SplitAfter(text, "\n")
	for i, raw := range lines {
		lineNo := i + 1
		line := strings.TrimRight(raw, "\r\n")
		rank := ""
		if m := rankPrefixRE.FindStringSubmatch(line); m != nil {
			rank, line = m[1], line[len(m[0]):]
		}
		trimmed := strings.TrimSpace(line)
		if errorLineRE.MatchString(trimmed) {
			return nil, &ToolError{Line: lineNo, Text: trimmed}
		}
		fields := strings.Fields(trimmed)
		if cols, named, ok := header(fields); ok {
			tables[rank] = &table{columns: cols, named: named, rep: started[rank]}
			started[rank]++
			continue
		}
		t := tables[rank]
		if t == nil || len(fields) == 0 {
			continue // text before a table: the launcher's, "Starting server...", "Running: ..."
		}
		want := len(t.columns)
		if t.named {
			want++
		}
		if len(fields) != want {
			if _, err := parseSize(fields[0]); err == nil && i == len(lines)-1 {
				return nil, fmt.Errorf("line %d is cut off (%q): the run did not finish", lineNo, trimmed)
			}
			// A line that is not a row ends the table.
			tables[rank] = nil
			continue
		}
		if t.named {
			fields = fields[1:]
		}
		row, err := parseRow(t.columns, fields)
		if err != nil {
			return nil, fmt.Errorf("line %d (%q): %w", lineNo, trimmed, err)
		}
		labels := map[string]string{
			results.LabelTool:    "fabtests",
			results.LabelMsgSize: strconv.FormatInt(row.size, 10),
			LabelIterations:      strconv.FormatInt(row.iterations, 10),
		}
		if rank != "" {
			labels[LabelRank] = rank
		}
		for _, f := range []struct {
			metric, unit string
			value        float64
		}{
			{MetricBandwidth, unitBandwidth, row.bandwidth},
			{MetricLatency, unitLatency, row.latency},
			{MetricMessageRate, unitMessageRate, row.rate},
		} {
			out = append(out, results.Sample{Test: test, Metric: f.metric, Unit: f.unit, Value: f.value,
				Repetition: t.rep, Labels: maps.Clone(labels)})
		}
		if len(out) > results.MaxRunSamples {
			return nil, results.ErrTooManySamples
		}
	}
	if len(out) == 0 {
		if len(started) > 0 {
			return nil, fmt.Errorf("%w: fabtests printed its table header but no row", results.ErrNoSamples)
		}
		return nil, errors.New(`not fabtests output: no "bytes ... MB/sec usec/xfer Mxfers/sec" table header`)
	}
	return out, nil
}

// header recognises a table header, with or without a leading name column.
func header(fields []string) (columns []string, named bool, ok bool) {
	if len(fields) > 0 && fields[0] == "name" {
		named, fields = true, fields[1:]
	}
	for _, cols := range [][]string{perfColumns, pingpongColumns} {
		if equal(fields, cols) {
			return cols, named, true
		}
	}
	return nil, false, false
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// row is one table row's figures.
type row struct {
	size, iterations         int64
	bandwidth, latency, rate float64
}

func parseRow(columns, fields []string) (row, error) {
	var r row
	var err error
	for i, col := range columns {
		f := fields[i]
		switch col {
		case "bytes":
			r.size, err = parseSize(f)
		case "iters", "#sent":
			r.iterations, err = parseCount(f)
		case "#ack":
			_, err = parseCount(strings.TrimPrefix(f, "="))
		case "total":
			_, err = parseSize(f)
		case "time":
			_, err = parseFigure(strings.TrimSuffix(f, "s"))
		case "MB/sec":
			r.bandwidth, err = parseFigure(f)
		case "usec/xfer":
			r.latency, err = parseFigure(f)
		case "Mxfers/sec":
			r.rate, err = parseFigure(f)
		}
		if err != nil {
			return row{}, fmt.Errorf("column %s: %w", col, err)
		}
	}
	return r, nil
}

// parseSize reads size_str's notation into bytes.
func parseSize(s string) (int64, error) {
	m := sizeRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a size (like 64, 1.5k, 8m)", s)
	}
	whole, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || whole > 1<<40 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	unit := map[string]int64{"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m[3]]
	tenth := int64(0)
	if m[2] != "" {
		tenth = int64(m[2][0] - '0')
	}
	return whole*unit + tenth*unit/10, nil
}

// parseCount reads cnt_str's notation (powers of 1000, truncated).
func parseCount(s string) (int64, error) {
	m := countRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a count (like 200, 20k)", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > 1<<40 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return n * map[string]int64{"": 1, "k": 1e3, "m": 1e6, "b": 1e9}[m[2]], nil
}

// parseFigure reads a printed figure: finite and not negative.
func parseFigure(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%q is not a figure", s)
	}
	return v, nil
}
