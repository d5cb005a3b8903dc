// Package imb turns the output of IMB-MPI1 (Intel MPI Benchmarks) into
// samples.
package imb

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/mpi/internal/digits"
	"github.com/benchwright/benchwright/internal/results"
)

// Labels of IMB samples besides the shared ones of package results.
const (
	labelRanks      = "ranks"      // "#processes = N" (per group in -multi mode)
	labelIterations = "iterations" // the #repetitions column
	labelMode       = "mode"       // "multi" for "# Benchmarking Multi-<name>"
	labelGroups     = "groups"     // -multi: how many groups ran at once
	labelGroup      = "group"      // -multi 1: the Group column of the row
)

// errNotIMBOutput is returned for input that holds no IMB marker at all.
var errNotIMBOutput = errors.New(`not IMB output: no "Intel(R) MPI Benchmarks" banner and no "# Benchmarking" header`)

// colKind says what a table column holds.
type colKind int

const (
	colValue colKind = iota // a figure: one sample per row
	colBytes                // #bytes: label msg_size
	colReps                 // #repetitions: label iterations
	colGroup                // Group (-multi 1): label group
)

// column maps one column header of an IMB table to a metric or label.
type column struct {
	kind   colKind
	metric string
	unit   string // empty for Mbytes/sec: the unit depends on the IMB version
}

// columns are the column headers IMB_output.c prints for IMB-MPI1; any
// other name is an error, never a guess. t_avg is the latency of tables with
// t_min/t_max/t_avg, t[usec] that of PingPong/PingPing (the maximum over ranks,
// which is also what Mbytes/sec is computed from). "defects" is the largest
// deviation of received data found by an IMB built with -DCHECK (0 = correct).
var columns = map[string]column{
	"Group":        {kind: colGroup},
	"#bytes":       {kind: colBytes},
	"#repetitions": {kind: colReps},
	"t[usec]":      {metric: "latency", unit: "us"},
	"t_min[usec]":  {metric: "latency_min", unit: "us"},
	"t_max[usec]":  {metric: "latency_max", unit: "us"},
	"t_avg[usec]":  {metric: "latency", unit: "us"},
	"Mbytes/sec":   {metric: "bandwidth"},
	"Msg/sec":      {metric: "message_rate", unit: "messages/s"},
	"defects":      {metric: "defects", unit: "1"},
}

var (
	// bannerLoose finds any IMB banner; banner parses one:
	// "#    Intel(R) MPI Benchmarks 2021.2, MPI-1 part",
	// "#    Intel (R) MPI Benchmarks 2017 update 2, MPI-1 part    ",
	// "#    Intel (R) MPI Benchmark Suite V3.2.4, MPI-1 part    ".
	bannerLoose = regexp.MustCompile(`Intel ?\(R\) MPI Benchmark`)
	banner      = regexp.MustCompile(`^#\s*Intel ?\(R\) MPI Benchmark(?:s| Suite) +(.*?), *(\S+) part\b`)
	versionRE   = regexp.MustCompile(`^V?((\d+)(?:\.\d+)*)(?: +[Uu]pdate +(\d+))?$`)
	benchHeader = regexp.MustCompile(`^#\s*Benchmarking +(Multi-)?([A-Za-z]\w*)\s*$`)
	processes   = regexp.MustCompile(`^#\s*#processes\s*=\s*(\d+)`)
	groups      = regexp.MustCompile(`^#\s*\(\s*(\d+) groups of (\d+) processes`)
	// rankPrefix is what launchers put before each line: Intel MPI
	// -prepend-rank "[0] ", Open MPI --tag-output "[1,0]<stdout>:" (job, rank),
	// srun -l "0: ". Submatches: the rank, the stream.
	rankPrefix = regexp.MustCompile(`^(?:\[(?:\d+,)?(\d+)\](?:<(stdout|stderr)>)?:? ?|(\d+): )`)
	// sampleFailure is IMB's row for a size it could not measure:
	// "  4194304 out-of-mem.; needed X= ...", "int-overflow.;", "time-out.;".
	sampleFailure = regexp.MustCompile(`^(?:\d+ +)+(?:out-of-mem|int-overflow|time-out)\.;`)
)

// Parse turns the output of IMB-MPI1 (Intel MPI Benchmarks 3.x, 4.x, 2017
// to 2021.x) into samples. Each "# Benchmarking <name>" block is test <name>
// with labels tool=imb, tool_version, ranks (#processes; per group with
// -multi), msg_size (#bytes; none for Barrier) and iterations (#repetitions);
// -multi output adds mode=multi and groups (and group for -multi 1). Metrics,
// as printed: latency (t[usec] or t_avg), latency_min, latency_max (us),
// bandwidth, message_rate (msg/s) and defects.
//
// Mbytes/sec is MiB/s (2^20 B/s) up to IMB 4.1 and MB/s (10^6 B/s) from IMB
// 2017 on: IMB_output.c divided by 1048576.0 in the 3.x/4.x sources and by 1e6
// from the 2017 sources on. The unit says which; the value is never converted.
//
// Launcher rank prefixes and MPI noise around the tables are skipped. A
// malformed row, a benchmark without rows, a missing or unknown version
// banner and non-finite or negative figures are errors naming the line. Rows
// in which IMB reports a failed size (out-of-mem, int-overflow, time-out) are
// left out: IMB measured nothing there.
func Parse(data []byte) ([]results.Sample, error) {
	p := parser{}
	for line := range strings.Lines(string(data)) {
		p.lineNo++
		if err := p.parseLine(line); err != nil {
			return nil, err
		}
	}
	if err := p.endBench(); err != nil {
		return nil, err
	}
	switch {
	case !p.marker:
		return nil, errNotIMBOutput
	case len(p.samples) == 0:
		return nil, fmt.Errorf("IMB output without any benchmark table: %w", results.ErrNoSamples)
	}
	return p.samples, nil
}

// parser holds the state of one pass over the output.
type parser struct {
	lineNo  int
	marker  bool   // an IMB banner or benchmark header was seen
	version string // tool_version of the last banner
	bwUnit  string // unit of Mbytes/sec for that version
	bench   *bench
	samples []results.Sample
}

// bench is the benchmark block being read.
type bench struct {
	name    string
	line    int               // of its "# Benchmarking" header
	labels  map[string]string // labels of all its samples
	cols    []column          // nil until the column header line
	grouped bool              // has a Group column (-multi 1)
	ended   bool              // its table is over
	rows    int               // rows read
	failed  int               // rows in which IMB reports a failed size
}

func (p *parser) parseLine(raw string) error {
	line, ok := stripPrefix(strings.TrimRight(raw, "\r\n"))
	if !ok {
		return nil
	}
	text := strings.TrimSpace(line)
	b := p.bench
	switch {
	case b != nil && b.cols == nil && isColumnHeader(text):
		return p.columnHeader(text)
	case text == "":
		return p.blankLine()
	case text[0] == '#':
		return p.commentLine(text)
	case b != nil && b.cols != nil && !b.ended:
		return p.row(text)
	}
	return nil // noise outside the tables
}

// stripPrefix removes a launcher's rank prefix; ok is false for lines
// that are not IMB's: standard error, or output of a rank other than 0 (IMB
// prints from rank 0 only).
func stripPrefix(line string) (string, bool) {
	if line == "" || (line[0] != '[' && (line[0] < '0' || line[0] > '9')) {
		return line, true
	}
	m := rankPrefix.FindStringSubmatch(line)
	if m == nil {
		return line, true
	}
	if rank := m[1] + m[3]; strings.TrimLeft(rank, "0") != "" || m[2] == "stderr" {
		return "", false
	}
	return line[len(m[0]):], true
}

// isColumnHeader tells a table's column header line by its first name.
func isColumnHeader(text string) bool {
	return strings.HasPrefix(text, "#bytes") || strings.HasPrefix(text, "#repetitions") ||
		strings.HasPrefix(text, "Group ")
}

func (p *parser) blankLine() error {
	b := p.bench
	if b == nil || b.cols == nil || b.ended || b.grouped {
		return nil // -multi 1 prints a blank line before each size's rows
	}
	return b.endTable()
}

func (p *parser) commentLine(text string) error {
	if b := p.bench; b != nil && b.cols != nil && !b.ended {
		if err := b.endTable(); err != nil {
			return err
		}
	}
	if m := benchHeader.FindStringSubmatch(text); m != nil {
		return p.startBench(m[2], m[1] != "")
	}
	if bannerLoose.MatchString(text) {
		return p.banner(text)
	}
	b := p.bench
	if b == nil || b.cols != nil {
		return nil
	}
	if m := processes.FindStringSubmatch(text); m != nil {
		b.labels[labelRanks] = trimInt(m[1])
	} else if m := groups.FindStringSubmatch(text); m != nil {
		b.labels[labelGroups] = trimInt(m[1])
		b.labels[labelRanks] = trimInt(m[2])
	}
	return nil
}

// trimInt drops leading zeros so that labels compare as IMB means them.
func trimInt(s string) string {
	if t := strings.TrimLeft(s, "0"); t != "" {
		return t
	}
	return "0"
}

// banner reads the version from an IMB banner line.
func (p *parser) banner(text string) error {
	p.marker = true
	m := banner.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("line %d: unrecognized IMB banner %q", p.lineNo, text)
	}
	if m[2] != "MPI-1" {
		return fmt.Errorf("line %d: IMB %s part output is not supported, only IMB-MPI1 (MPI-1 part): %q",
			p.lineNo, m[2], text)
	}
	version, unit, err := versionUnit(m[1])
	if err != nil {
		return fmt.Errorf("line %d: %w", p.lineNo, err)
	}
	p.version, p.bwUnit = version, unit
	return nil
}

// versionUnit normalizes an IMB version ("2019 Update 6", "4.1", "3.2.4")
// and returns the unit of its Mbytes/sec column: MiB/s before 2017, MB/s from
// 2017 on (there is no release numbered between 4.1 Update 1 and 2017).
func versionUnit(s string) (version, unit string, err error) {
	s = strings.Join(strings.Fields(s), " ")
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return "", "", fmt.Errorf("unknown IMB version format %q", s)
	}
	major, err := strconv.Atoi(m[2])
	switch {
	case err != nil:
		return "", "", fmt.Errorf("unknown IMB version %q", s)
	case major >= 2 && major <= 4:
		unit = "MiB/s"
	case major >= 2017 && major < 10000:
		unit = "MB/s"
	default:
		return "", "", fmt.Errorf("unknown IMB version %q", s)
	}
	version = m[1]
	if m[3] != "" {
		version += " Update " + m[3]
	}
	return version, unit, nil
}

// startBench ends the current benchmark and starts the one of a
// "# Benchmarking" header.
func (p *parser) startBench(name string, multi bool) error {
	p.marker = true
	if err := p.endBench(); err != nil {
		return err
	}
	if p.version == "" {
		return fmt.Errorf("line %d: IMB benchmark %s before any \"Intel(R) MPI Benchmarks\" banner: "+
			"the unit of Mbytes/sec depends on the IMB version", p.lineNo, name)
	}
	labels := map[string]string{results.LabelTool: "imb", results.LabelToolVersion: p.version}
	if multi {
		labels[labelMode] = "multi"
	}
	p.bench = &bench{name: name, line: p.lineNo, labels: labels}
	return nil
}

// endBench checks that the current benchmark, if any, had its table.
func (p *parser) endBench() error {
	b := p.bench
	if b == nil {
		return nil
	}
	p.bench = nil
	if b.cols == nil {
		return fmt.Errorf("line %d: IMB benchmark %s has no results table (truncated output?)", b.line, b.name)
	}
	if !b.ended {
		return b.endTable()
	}
	return nil
}

// endTable ends the benchmark's table, which must have had rows.
func (b *bench) endTable() error {
	b.ended = true
	if b.rows > 0 {
		return nil
	}
	if b.failed > 0 {
		return fmt.Errorf("line %d: IMB benchmark %s: every one of its %d sizes failed (out-of-mem, int-overflow or time-out)",
			b.line, b.name, b.failed)
	}
	return fmt.Errorf("line %d: IMB benchmark %s has a column header but no rows (truncated output?)", b.line, b.name)
}

// columnHeader maps the column names of the current benchmark's table.
func (p *parser) columnHeader(text string) error {
	b := p.bench
	names := strings.Fields(text)
	cols := make([]column, len(names))
	seen := map[string]bool{}
	values := 0
	for i, name := range names {
		c, ok := columns[name]
		if !ok {
			return fmt.Errorf("line %d: unknown IMB column %q in %q", p.lineNo, name, text)
		}
		if seen[name] {
			return fmt.Errorf("line %d: IMB column %q appears twice in %q", p.lineNo, name, text)
		}
		seen[name] = true
		if c.kind == colValue {
			values++
			if c.unit == "" {
				c.unit = p.bwUnit
			}
		}
		b.grouped = b.grouped || c.kind == colGroup
		cols[i] = c
	}
	if values == 0 || !seen["#repetitions"] {
		return fmt.Errorf("line %d: IMB column header without #repetitions or figures: %q", p.lineNo, text)
	}
	if seen["t[usec]"] && seen["t_avg[usec]"] {
		return fmt.Errorf("line %d: IMB column header with both t[usec] and t_avg[usec]: %q", p.lineNo, text)
	}
	b.cols = cols
	return nil
}

// row turns one table row into samples.
func (p *parser) row(text string) error {
	b := p.bench
	if strings.Contains(text, ".;") && sampleFailure.MatchString(text) {
		b.failed++
		return nil
	}
	fields := strings.Fields(text)
	if len(fields) != len(b.cols) {
		return fmt.Errorf("line %d: malformed IMB %s row: %d fields, want %d: %q",
			p.lineNo, b.name, len(fields), len(b.cols), text)
	}
	values := make([]float64, len(fields))
	for i, f := range fields {
		v, err := number(f, b.cols[i].kind != colValue)
		if err != nil {
			return fmt.Errorf("line %d: malformed IMB %s row %q: %w", p.lineNo, b.name, text, err)
		}
		values[i] = v
	}
	for i, c := range b.cols {
		if c.kind == colValue {
			p.samples = append(p.samples, results.Sample{Test: b.name, Metric: c.metric, Value: values[i],
				Unit: c.unit, Labels: b.rowLabels(fields)})
		}
	}
	if len(p.samples) > results.MaxRunSamples {
		return results.ErrTooManySamples
	}
	b.rows++
	return nil
}

// rowLabels returns the benchmark's labels plus those of one row's fields.
func (b *bench) rowLabels(fields []string) map[string]string {
	labels := make(map[string]string, len(b.labels)+3)
	maps.Copy(labels, b.labels)
	for i, c := range b.cols {
		switch c.kind {
		case colBytes:
			labels[results.LabelMsgSize] = fields[i]
		case colReps:
			labels[labelIterations] = fields[i]
		case colGroup:
			labels[labelGroup] = fields[i]
		}
	}
	return labels
}

// number parses one field of a row: a non-negative decimal integer, or a
// finite non-negative decimal number when integer is false.
func number(f string, integer bool) (float64, error) {
	if integer {
		if !digits.All(f) || len(f) > 18 {
			return 0, fmt.Errorf("%q is not a count", f)
		}
		n, err := strconv.ParseInt(f, 10, 64)
		return float64(n), err
	}
	if !digits.PlainDecimal(f) {
		return 0, fmt.Errorf("%q is not a non-negative finite number", f)
	}
	v, err := strconv.ParseFloat(f, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is out of range", f)
	}
	return v, nil
}
