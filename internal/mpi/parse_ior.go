package mpi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// IOR metrics and their units, as IOR prints them.
const (
	iorMetricBandwidth = "bandwidth" // MiB/s
	iorMetricIOPS      = "iops"      // ops/s
	iorMetricLatency   = "latency"   // s
	iorUnitBandwidth   = "MiB/s"
	iorUnitIOPS        = "ops/s"
	iorUnitLatency     = "s"
)

// Labels of IOR samples besides tool, tool_version and block_size.
const (
	iorLabelAPI          = "api"
	iorLabelTasks        = "tasks"
	iorLabelTransferSize = "transfer_size"
	iorLabelSegments     = "segments"
	iorLabelFilePerProc  = "file_per_proc"
	iorLabelIteration    = "iteration"
	iorLabelTestID       = "test_id"
)

// ParseIOR turns IOR's output into samples: the default text (IOR 3.0 to
// 4.x) or the JSON summary (-O summaryFormat=JSON). Samples are per iteration
// (label iteration) and access (test "write" or "read"): bandwidth (MiB/s),
// and where IOR printed them iops (ops/s) and latency (s, IOR's figure: rank
// 0's write or read time over its transfer count, which IOR 3.3 counts in one
// segment only). A test whose only figures are in IOR's summary yields
// bandwidth_max, bandwidth_min, bandwidth_mean (MiB/s) and, when printed,
// iops_max, iops_min, iops_mean (ops/s); where per-iteration rows exist the
// summary, derived from them, is not reported. Labels: tool=ior, tool_version,
// and from the run's parameters when printed: api, tasks, transfer_size and
// block_size in bytes (only when printed exactly, not a rounded "126.95 GiB"),
// segments, file_per_proc (true/false); test_id when the output holds several
// tests.
//
// Errors: empty input gives results.ErrNoSamples; input that is not IOR's says
// so; an IOR error line ("ior ERROR: …", "ERROR: …") is quoted; a run that did
// not finish (no closing "Finished" line, an unclosed JSON document) is
// reported as truncated, without the rows printed before the cut; unknown
// table columns and figures that are NaN, infinite or negative ("-") are
// errors.
func ParseIOR(data []byte) ([]results.Sample, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, results.ErrNoSamples
	}
	if line, ok := iorErrorLine(data); ok {
		return nil, fmt.Errorf("IOR reported an error: %q", line)
	}
	var run *iorRun
	var err error
	if start, ok := iorFindJSON(data, 0); ok {
		run, err = iorParseJSON(data, start)
	} else if file, ok := iorSummaryFile(data); ok {
		return nil, fmt.Errorf("IOR wrote its results to %s (-O summaryFile=), not to its output: parse that file "+
			"(benchwright parse --tool ior %s)", file, file)
	} else {
		run, err = iorParseText(data)
	}
	if err != nil {
		return nil, err
	}
	samples, err := run.samples()
	if err != nil {
		return nil, err
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("%w: IOR printed no write or read result", results.ErrNoSamples)
	}
	// IOR's iterations (-i) are repetitions of the run, not parallel parts of
	// one: statistics must not add their bandwidths up.
	for i := range samples {
		if it, err := strconv.Atoi(samples[i].Labels[iorLabelIteration]); err == nil {
			samples[i].Repetition = it
		}
	}
	return samples, nil
}

var (
	// iorFailedRE matches IOR 4's FAIL() messages: "<time>: Process 0: FAILED in <where>, <why>".
	iorFailedRE = regexp.MustCompile(`: Process \d+: FAILED in `)
	// iorVersionRE is the first line IOR prints in text mode.
	iorVersionRE = regexp.MustCompile(`^IOR-(\S+): MPI Coordinated Test of Parallel I/O`)
	// iorTestStartedRE starts a test in IOR 3.0 ("Test 0 started: <date>").
	iorTestStartedRE = regexp.MustCompile(`^Test (\d+) started:`)
	// iorSegmentsRE reads IOR 3.0's "pattern = strided (N segments)".
	iorSegmentsRE = regexp.MustCompile(`\((\d+) segments?\)`)
)

// iorErrorLine finds the first error IOR printed: "ior ERROR: …" (3.x),
// "ERROR: …" (4.x), "ERROR in file (line n): …" (3.0) or a FAIL() message.
// An Open MPI --tag-output prefix ("[1,0]<stderr>:") is allowed.
func iorErrorLine(data []byte) (string, bool) {
	for raw := range strings.Lines(string(data)) {
		line := strings.TrimSpace(raw)
		text := line
		if strings.HasPrefix(text, "[") {
			if _, rest, ok := strings.Cut(text, "]"); ok {
				rest = strings.TrimPrefix(rest, "<stdout>:")
				text = strings.TrimSpace(strings.TrimPrefix(rest, "<stderr>:"))
			}
		}
		text = strings.TrimPrefix(text, "ior ")
		if strings.HasPrefix(text, "ERROR:") || strings.HasPrefix(text, "ERROR in ") || iorFailedRE.MatchString(text) {
			return line, true
		}
	}
	return "", false
}

// iorSummaryFile finds IOR's "Writing output to FILE" (-O summaryFile=) in
// an output that holds no results: the results are in FILE.
func iorSummaryFile(data []byte) (string, bool) {
	if bytes.HasPrefix(data, []byte("IOR-")) || bytes.Contains(data, []byte("\nIOR-")) {
		return "", false
	}
	for line := range strings.Lines(string(data)) {
		if file, ok := strings.CutPrefix(strings.TrimSpace(line), "Writing output to "); ok && file != "" {
			return file, true
		}
	}
	return "", false
}

// iorRun is what one IOR run printed, in either format.
type iorRun struct {
	version string
	// params are labels per test ID from the test's settings (the text
	// "Options:" block, the JSON "Parameters"); summaryParams those from the
	// summary, which has sizes in exact bytes and so wins.
	params        map[int64]map[string]string
	summaryParams map[int64]map[string]string
	rows          []iorPoint // per-iteration results
	summary       []iorPoint // summary rows
}

// iorPoint is one write or read result: a per-iteration row or a summary row.
type iorPoint struct {
	testID    int64
	access    string // write or read
	iteration string // "" for a summary row
	figures   []iorFigure
}

type iorFigure struct {
	metric, unit string
	value        float64
}

// iorParamsOf returns the labels of test id in m, making them.
func iorParamsOf(m *map[int64]map[string]string, id int64) map[string]string {
	if *m == nil {
		*m = map[int64]map[string]string{}
	}
	if (*m)[id] == nil {
		(*m)[id] = map[string]string{}
	}
	return (*m)[id]
}

// samples turns the run's rows into samples, then the summary rows of the
// tests and accesses that have no per-iteration row.
func (r *iorRun) samples() ([]results.Sample, error) {
	type key struct {
		id     int64
		access string
	}
	ids := map[int64]bool{}
	for _, p := range r.rows {
		ids[p.testID] = true
	}
	for _, p := range r.summary {
		ids[p.testID] = true
	}
	var out []results.Sample
	perIteration := map[key]bool{}
	for _, p := range r.rows {
		perIteration[key{p.testID, p.access}] = true
		labels := r.labels(p.testID, len(ids) > 1)
		labels[iorLabelIteration] = p.iteration
		if out = p.appendSamples(out, labels); len(out) > results.MaxRunSamples {
			return nil, results.ErrTooManySamples
		}
	}
	for _, p := range r.summary {
		if !perIteration[key{p.testID, p.access}] {
			if out = p.appendSamples(out, r.labels(p.testID, len(ids) > 1)); len(out) > results.MaxRunSamples {
				return nil, results.ErrTooManySamples
			}
		}
	}
	return out, nil
}

func (r *iorRun) labels(id int64, several bool) map[string]string {
	labels := map[string]string{results.LabelTool: "ior"}
	if r.version != "" {
		labels[results.LabelToolVersion] = r.version
	}
	maps.Copy(labels, r.params[id])
	maps.Copy(labels, r.summaryParams[id])
	if several {
		labels[iorLabelTestID] = strconv.FormatInt(id, 10)
	}
	return labels
}

func (p *iorPoint) appendSamples(out []results.Sample, labels map[string]string) []results.Sample {
	for _, f := range p.figures {
		out = append(out, results.Sample{Test: p.access, Metric: f.metric, Value: f.value, Unit: f.unit,
			Labels: maps.Clone(labels)})
	}
	return out
}

// iorValue parses a figure as IOR prints it ("%f"); IOR prints "-" for a
// negative figure and inf or nan (glibc: -nan) for non-finite ones.
func iorValue(tok string) (float64, error) {
	switch strings.ToLower(strings.TrimLeft(tok, "+-")) {
	case "":
		if tok == "-" {
			return 0, errors.New(`"-" (IOR's rendering of a negative figure)`)
		}
	case "nan", "inf", "infinity":
		return 0, fmt.Errorf("%q is not finite", tok)
	}
	if !iorDecimal(tok) {
		return 0, fmt.Errorf("%q is not a number", tok)
	}
	v, err := strconv.ParseFloat(tok, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is out of range", tok)
	case v < 0:
		return 0, fmt.Errorf("%q is negative", tok)
	}
	return v, nil
}

// iorDecimal reports whether s is a plain decimal number: sign, digits with
// at most one point, an optional exponent.
func iorDecimal(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if !allDigits(intPart + frac) { // either part may be empty, not both
		return false
	}
	if hasExp {
		exp = strings.TrimPrefix(strings.TrimPrefix(exp, "-"), "+")
		return allDigits(exp)
	}
	return true
}

// iorInt validates a count or size IOR printed as an integer.
func iorInt(tok string) (int64, bool) {
	if len(tok) > 19 || !allDigits(tok) {
		return 0, false
	}
	n, err := strconv.ParseInt(tok, 10, 64)
	return n, err == nil
}

// iorCount validates a count or size IOR printed as an integer and returns
// it in canonical form.
func iorCount(tok string) (string, bool) {
	n, ok := iorInt(tok)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// iorSizeUnits are the units of IOR's HumanReadable() (BASE_TWO).
var iorSizeUnits = map[string]int64{"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	"TiB": 1 << 40, "PiB": 1 << 50}

// iorExactSize converts a size IOR printed with HumanReadable() to bytes when
// the printed figure is exact ("262144 bytes", "16 MiB"); "126.95 GiB" is
// rounded, so it gives false.
func iorExactSize(s string) (string, bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return "", false
	}
	mult, ok := iorSizeUnits[f[1]]
	if !ok {
		return "", false
	}
	v, ok := iorInt(f[0])
	if !ok || v > math.MaxInt64/mult {
		return "", false
	}
	return strconv.FormatInt(v*mult, 10), true
}

// iorBool turns IOR's 0/1 flags into a label value.
func iorBool(tok string) (string, bool) {
	switch tok {
	case "0":
		return "false", true
	case "1":
		return "true", true
	}
	return "", false
}

// iorTable is the table the text parser is in.
type iorTable int

const (
	iorNoTable iorTable = iota
	iorResultsTable
	iorSummaryTable
)

// iorResultColumns are the columns of IOR's per-iteration table (3.0 to 4.x:
// 3.3 added IOPS and Latency(s)), with the figure each holds; the others are
// known and not reported.
var iorResultColumns = map[string]iorFigure{
	"access":     {},
	"bw(MiB/s)":  {metric: iorMetricBandwidth, unit: iorUnitBandwidth},
	"IOPS":       {metric: iorMetricIOPS, unit: iorUnitIOPS},
	"Latency(s)": {metric: iorMetricLatency, unit: iorUnitLatency},
	"block(KiB)": {}, "xfer(KiB)": {}, "open(s)": {}, "wr/rd(s)": {}, "close(s)": {}, "total(s)": {},
	"iter": {},
}

// iorSummaryColumns are the columns of "Summary of all tests:" (3.0 has
// no OPs and aggsize; 3.1 adds the OPs; 3.3 Stonewall and aggs(MiB)). StdDev
// follows both Mean(MiB) and Mean(OPs).
var iorSummaryColumns = map[string]iorFigure{
	"Max(MiB)":  {metric: iorMetricBandwidth + "_max", unit: iorUnitBandwidth},
	"Min(MiB)":  {metric: iorMetricBandwidth + "_min", unit: iorUnitBandwidth},
	"Mean(MiB)": {metric: iorMetricBandwidth + "_mean", unit: iorUnitBandwidth},
	"Max(OPs)":  {metric: iorMetricIOPS + "_max", unit: iorUnitIOPS},
	"Min(OPs)":  {metric: iorMetricIOPS + "_min", unit: iorUnitIOPS},
	"Mean(OPs)": {metric: iorMetricIOPS + "_mean", unit: iorUnitIOPS},
	"Operation": {}, "StdDev": {}, "Mean(s)": {}, "Stonewall(s)": {}, "Stonewall(MiB)": {}, "Test#": {},
	"#Tasks": {}, "tPN": {}, "reps": {}, "fPP": {}, "reord": {}, "reordoff": {}, "reordrand": {}, "seed": {},
	"segcnt": {}, "blksiz": {}, "xsize": {}, "aggsize": {}, "aggs(MiB)": {}, "API": {}, "RefNum": {},
}

// iorTextParser reads IOR's text output line by line.
type iorTextParser struct {
	run      iorRun
	runs     int  // "IOR-<version>:" lines
	tables   bool // a Results or summary header was seen
	csv      bool // a summaryFormat=CSV header was seen
	finished bool // IOR's closing "Finished" line was seen
	testID   int64
	sep      string // key/value separator of the settings block the parser is in
	table    iorTable
	cols     []string
	rows     int   // complete result rows
	err      error // the first malformed line
}

func iorParseText(data []byte) (*iorRun, error) {
	p := &iorTextParser{}
	n := 0
	for raw := range strings.Lines(string(data)) {
		n++
		p.line(n, strings.TrimSpace(raw))
	}
	switch {
	case p.runs > 1:
		return nil, fmt.Errorf("the output holds %d IOR runs; parse one at a time", p.runs)
	case p.runs == 0 && !p.tables && p.csv:
		return nil, errors.New("IOR's CSV output (summaryFormat=CSV) is not supported: use the default text or JSON")
	case p.runs == 0 && !p.tables:
		return nil, fmt.Errorf(`not IOR output: no "IOR-<version>: MPI Coordinated Test of Parallel I/O" line, `+
			`no Results or summary table, no JSON summary (the output starts with %q)`, strings.TrimSpace(results.FirstLine(data)))
	case !p.finished:
		return nil, fmt.Errorf(`IOR output is truncated: it ends without IOR's closing "Finished" line, `+
			`so the run did not finish (%d result row(s) before the cut are not reported)`, p.rows)
	}
	return &p.run, p.err
}

func (p *iorTextParser) line(n int, line string) {
	fields := strings.Fields(line)
	switch {
	case len(fields) == 0:
		p.sep = "" // a blank line ends a settings block
	case iorVersionRE.MatchString(line):
		p.runs++
		p.run.version = iorVersionRE.FindStringSubmatch(line)[1]
	case fields[0] == "access" && len(fields) > 1 && fields[1] == "bw(MiB/s)":
		p.startTable(n, line, iorResultsTable, iorResultColumns, "bw(MiB/s)", "iter")
	case fields[0] == "Operation" && len(fields) > 1 && fields[1] == "Max(MiB)":
		p.startTable(n, line, iorSummaryTable, iorSummaryColumns, "Max(MiB)", "Min(MiB)", "Mean(MiB)")
	case strings.HasPrefix(line, "access,bw(MiB/s)"):
		p.csv = true
	case line == "Options:": // IOR 3.1+: "key : value"
		p.sep, p.table = ":", iorNoTable
	case line == "Summary:": // IOR 3.0: "key = value"
		p.sep, p.table = "=", iorNoTable
	case p.sep != "":
		p.setting(line)
	case p.table == iorResultsTable && (fields[0] == "write" || fields[0] == "read" || fields[0] == "remove"):
		p.resultRow(n, line, fields)
	case p.table == iorSummaryTable && (fields[0] == "write" || fields[0] == "read"):
		p.summaryRow(n, line, fields)
	default:
		p.keyValue(n, line)
	}
}

// fail records the first malformed line.
func (p *iorTextParser) fail(n int, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("line %d: %s", n, fmt.Sprintf(format, args...))
	}
}

// startTable checks a table header: every column known, the required ones
// present.
func (p *iorTextParser) startTable(n int, line string, t iorTable, known map[string]iorFigure, required ...string) {
	p.tables, p.sep, p.table = true, "", iorNoTable
	seen := map[string]bool{}
	for _, c := range strings.Fields(line) {
		if _, ok := known[c]; !ok {
			p.fail(n, "unknown column %q in IOR's table header %q", c, line)
			return
		}
		if seen[c] && c != "StdDev" {
			p.fail(n, "column %q appears twice in IOR's table header %q", c, line)
			return
		}
		seen[c] = true
	}
	for _, c := range required {
		if !seen[c] {
			p.fail(n, "IOR's table header has no %q column: %q", c, line)
			return
		}
	}
	p.table, p.cols = t, strings.Fields(line)
}

// keyValue reads the lines outside tables and settings that matter: where a
// test starts and IOR's closing "Finished" line.
func (p *iorTextParser) keyValue(n int, line string) {
	if m := iorTestStartedRE.FindStringSubmatch(line); m != nil {
		p.startTest(n, m[1])
		return
	}
	key, value, ok := strings.Cut(line, ":")
	if !ok {
		return
	}
	switch strings.TrimSpace(key) {
	case "TestID":
		p.startTest(n, strings.TrimSpace(value))
	case "Finished":
		p.finished, p.table = true, iorNoTable
	}
}

func (p *iorTextParser) startTest(n int, id string) {
	p.table = iorNoTable
	v, ok := iorInt(id)
	if !ok {
		p.fail(n, "test ID %q is not a number", id)
		return
	}
	p.testID = v
}

// setting reads one line of the test's settings ("Options:" in 3.1+,
// "Summary:" in 3.0) into labels.
func (p *iorTextParser) setting(line string) {
	key, value, ok := strings.Cut(line, p.sep)
	if !ok {
		return
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	labels := iorParamsOf(&p.run.params, p.testID)
	set := func(label string, v string, ok bool) {
		if ok {
			labels[label] = v
		}
	}
	first, _, _ := strings.Cut(value, " ")
	switch key {
	case "api":
		if p.sep == "=" {
			// IOR 3.0 prints the API's version string: "MPIIO (version=3, subversion=0)".
			value, _, _ = strings.Cut(first, "-")
		}
		set(iorLabelAPI, value, value != "")
	case "tasks", "clients": // 3.0: "clients = 1 (1 per node)"
		set(iorCountLabel(iorLabelTasks, first))
	case "segments":
		set(iorCountLabel(iorLabelSegments, value))
	case "pattern": // 3.0 -v: "strided (4 segments)"
		if m := iorSegmentsRE.FindStringSubmatch(value); m != nil {
			set(iorCountLabel(iorLabelSegments, m[1]))
		}
	case "access":
		fpp := strings.HasPrefix(value, "file-per-process")
		set(iorLabelFilePerProc, strconv.FormatBool(fpp), fpp || strings.HasPrefix(value, "single-shared-file"))
	case "xfersize":
		v, ok := iorExactSize(value)
		set(iorLabelTransferSize, v, ok)
	case "blocksize":
		v, ok := iorExactSize(value)
		set(results.LabelBlockSize, v, ok)
	}
}

func iorCountLabel(label, tok string) (string, string, bool) {
	v, ok := iorCount(tok)
	return label, v, ok
}

// resultRow reads one row of the per-iteration table; "remove" rows are
// checked and skipped.
func (p *iorTextParser) resultRow(n int, line string, fields []string) {
	if len(fields) != len(p.cols) {
		p.fail(n, "IOR result row has %d fields, its header %d: %q", len(fields), len(p.cols), line)
		return
	}
	if fields[0] == "remove" {
		return
	}
	pt := iorPoint{testID: p.testID, access: fields[0]}
	for i, col := range p.cols {
		if col == "iter" {
			it, ok := iorCount(fields[i])
			if !ok {
				p.fail(n, "IOR %s row: iteration %q is not a number", fields[0], fields[i])
				return
			}
			pt.iteration = it
			continue
		}
		if fig := iorResultColumns[col]; fig.metric != "" {
			v, err := iorValue(fields[i])
			if err != nil {
				p.fail(n, "IOR %s row, %s: %v", fields[0], col, err)
				return
			}
			pt.figures = append(pt.figures, iorFigure{metric: fig.metric, unit: fig.unit, value: v})
		}
	}
	p.rows++
	p.run.rows = append(p.run.rows, pt)
}

// summaryRow reads one row of "Summary of all tests:": its figures and the
// test's parameters (sizes in bytes).
func (p *iorTextParser) summaryRow(n int, line string, fields []string) {
	if len(fields) != len(p.cols) {
		p.fail(n, "IOR summary row has %d fields, its header %d: %q", len(fields), len(p.cols), line)
		return
	}
	pt := iorPoint{access: fields[0]}
	labels := map[string]string{}
	for i, col := range p.cols {
		if err := iorSummaryCell(&pt, labels, col, fields[i]); err != nil {
			p.fail(n, "IOR summary %s row, %s: %v", fields[0], col, err)
			return
		}
	}
	maps.Copy(iorParamsOf(&p.run.summaryParams, pt.testID), labels)
	p.run.summary = append(p.run.summary, pt)
}

func iorSummaryCell(pt *iorPoint, labels map[string]string, col, tok string) error {
	ok := true
	switch col {
	case "Test#":
		pt.testID, ok = iorInt(tok)
	case "#Tasks":
		labels[iorLabelTasks], ok = iorCount(tok)
	case "segcnt":
		labels[iorLabelSegments], ok = iorCount(tok)
	case "blksiz":
		labels[results.LabelBlockSize], ok = iorCount(tok)
	case "xsize":
		labels[iorLabelTransferSize], ok = iorCount(tok)
	case "fPP":
		labels[iorLabelFilePerProc], ok = iorBool(tok)
	case "API":
		labels[iorLabelAPI] = tok
	default:
		fig := iorSummaryColumns[col]
		if fig.metric == "" {
			return nil
		}
		f, err := iorValue(tok)
		if err != nil {
			return err
		}
		pt.figures = append(pt.figures, iorFigure{metric: fig.metric, unit: fig.unit, value: f})
	}
	if !ok {
		return fmt.Errorf("%q is not a valid value", tok)
	}
	return nil
}

// iorJSONDoc is the part of IOR's JSON summary (-O summaryFormat=JSON, IOR
// 3.1+) the parser reads, as src/ior-output.c prints it:
//
//	{"Version": "4.0.0", "Began": …, "Command line": …, "Machine": …,
//	 "tests": [{"TestID": 0, "StartTime": …, "Parameters": {…}, "Options": {…},
//	            "Results": [{"access": "write", "bwMiB": …, "iops": …, "latency": …, …}, …],
//	            "max": {…}}],
//	 "summary": [{"operation": "write", "API": …, "bwMaxMIB": …, …}],
//	 "Finished": …}
//
// IOR 4.0 prints Results flat, each iteration's accesses in turn (write, then
// read), so the n-th result of an access is iteration n; IOR 3.x nested one
// array per iteration. iops and latency appeared in 3.3.
type iorJSONDoc struct {
	Version string           `json:"Version"`
	Tests   []iorJSONTest    `json:"tests"`
	Summary []iorJSONSummary `json:"summary"`
}

type iorJSONTest struct {
	TestID     *int64          `json:"TestID"`
	Parameters iorJSONParams   `json:"Parameters"`
	Options    iorJSONOptions  `json:"Options"`
	Results    json.RawMessage `json:"Results"`
}

// iterations returns the test's results per iteration, from either shape of
// Results.
func (t *iorJSONTest) iterations() ([][]iorJSONResult, error) {
	if len(t.Results) == 0 || string(t.Results) == "null" {
		return nil, nil
	}
	var nested [][]iorJSONResult
	if err := json.Unmarshal(t.Results, &nested); err == nil {
		return nested, nil
	}
	var flat []iorJSONResult
	if err := json.Unmarshal(t.Results, &flat); err != nil {
		return nil, fmt.Errorf("parsing IOR JSON: Results is neither a list of results nor one per iteration: %w", err)
	}
	seen := map[string]int{}
	for _, res := range flat {
		it := seen[res.Access]
		seen[res.Access]++
		for len(nested) <= it {
			nested = append(nested, nil)
		}
		nested[it] = append(nested[it], res)
	}
	return nested, nil
}

// iorJSONParams are the test parameters IOR prints in exact units.
type iorJSONParams struct {
	API          string `json:"api"`
	TransferSize *int64 `json:"transferSize"`
	BlockSize    *int64 `json:"blockSize"`
	SegmentCount *int64 `json:"segmentCount"`
	FilePerProc  *int64 `json:"filePerProc"`
}

// iorJSONOptions is the "Options" section: the only place with the task count.
type iorJSONOptions struct {
	Tasks *int64 `json:"tasks"`
}

type iorJSONResult struct {
	Access  string       `json:"access"`
	BwMiB   iorJSONValue `json:"bwMiB"`
	IOPS    iorJSONValue `json:"iops"`
	Latency iorJSONValue `json:"latency"`
}

type iorJSONSummary struct {
	Operation    string       `json:"operation"`
	API          string       `json:"API"`
	TestID       *int64       `json:"TestID"`
	NumTasks     *int64       `json:"numTasks"`
	TransferSize *int64       `json:"transferSize"`
	BlockSize    *int64       `json:"blockSize"`
	SegmentCount *int64       `json:"segmentCount"`
	FilePerProc  *int64       `json:"filePerProc"`
	BwMax        iorJSONValue `json:"bwMaxMIB"`
	BwMin        iorJSONValue `json:"bwMinMIB"`
	BwMean       iorJSONValue `json:"bwMeanMIB"`
	OPsMax       iorJSONValue `json:"OPsMax"`
	OPsMin       iorJSONValue `json:"OPsMin"`
	OPsMean      iorJSONValue `json:"OPsMean"`
}

// iorJSONValue is a figure as IOR printed it ("%.4f"; IOR 4 quotes an
// infinite one, "inf"), checked by iorValue.
type iorJSONValue struct {
	text string
	set  bool
}

func (v *iorJSONValue) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	text := string(b)
	if b[0] == '"' {
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
	}
	v.text, v.set = text, true
	return nil
}

// iorFindJSON returns the offset, at or after from, of the '{' that opens
// IOR's JSON document: its first key is "Version".
func iorFindJSON(data []byte, from int) (int, bool) {
	return results.FindJSONObject(data, from, "Version")
}

func iorParseJSON(data []byte, start int) (*iorRun, error) {
	end := results.JSONObjectLen(data[start:])
	if end < 0 {
		return nil, errors.New("IOR JSON output is truncated: the document never closes, so the run did not finish")
	}
	if _, ok := iorFindJSON(data, start+end); ok {
		return nil, errors.New("the output holds more than one IOR JSON document; parse one run at a time")
	}
	var doc iorJSONDoc
	if err := json.Unmarshal(data[start:start+end], &doc); err != nil {
		var syntaxErr *json.SyntaxError
		if errors.As(err, &syntaxErr) {
			// IOR prints a NaN bare (nan), which is not JSON.
			return nil, fmt.Errorf("parsing IOR JSON at byte %d: %w", start+int(syntaxErr.Offset), err)
		}
		return nil, fmt.Errorf("parsing IOR JSON: %w", err)
	}
	if doc.Tests == nil && doc.Summary == nil {
		return nil, errors.New(`not IOR JSON output: a "Version" object with no "tests" and no "summary"`)
	}
	run := &iorRun{version: doc.Version}
	for i := range doc.Tests {
		if err := run.addJSONTest(&doc.Tests[i], i); err != nil {
			return nil, err
		}
	}
	for i := range doc.Summary {
		if err := run.addJSONSummary(&doc.Summary[i]); err != nil {
			return nil, fmt.Errorf("IOR JSON summary %d: %w", i, err)
		}
	}
	return run, nil
}

func (r *iorRun) addJSONTest(t *iorJSONTest, index int) error {
	id := int64(index)
	if t.TestID != nil {
		id = *t.TestID
	}
	labels := iorParamsOf(&r.params, id)
	p := &t.Parameters
	if p.API != "" {
		labels[iorLabelAPI] = p.API
	}
	err := errors.Join(iorJSONCount(labels, iorLabelTransferSize, p.TransferSize),
		iorJSONCount(labels, results.LabelBlockSize, p.BlockSize),
		iorJSONCount(labels, iorLabelSegments, p.SegmentCount),
		iorJSONFlag(labels, iorLabelFilePerProc, p.FilePerProc),
		iorJSONCount(labels, iorLabelTasks, t.Options.Tasks))
	if err != nil {
		return fmt.Errorf("IOR JSON test %d: %w", id, err)
	}
	iterations, err := t.iterations()
	if err != nil {
		return fmt.Errorf("IOR JSON test %d: %w", id, err)
	}
	for it, rep := range iterations {
		for _, res := range rep {
			if res.Access == "remove" {
				continue
			}
			pt := iorPoint{testID: id, access: res.Access, iteration: strconv.Itoa(it)}
			if err := pt.addJSONFigures(res.Access, []iorJSONFigure{
				{"bwMiB", res.BwMiB, iorMetricBandwidth, iorUnitBandwidth, true},
				{"iops", res.IOPS, iorMetricIOPS, iorUnitIOPS, false},
				{"latency", res.Latency, iorMetricLatency, iorUnitLatency, false},
			}); err != nil {
				return fmt.Errorf("IOR JSON test %d, iteration %d: %w", id, it, err)
			}
			r.rows = append(r.rows, pt)
		}
	}
	return nil
}

func (r *iorRun) addJSONSummary(s *iorJSONSummary) error {
	var pt iorPoint
	if s.TestID != nil {
		pt.testID = *s.TestID
	}
	pt.access = s.Operation
	bw, ops := iorMetricBandwidth, iorMetricIOPS
	err := pt.addJSONFigures(s.Operation, []iorJSONFigure{
		{"bwMaxMIB", s.BwMax, bw + "_max", iorUnitBandwidth, true},
		{"bwMinMIB", s.BwMin, bw + "_min", iorUnitBandwidth, true},
		{"bwMeanMIB", s.BwMean, bw + "_mean", iorUnitBandwidth, true},
		{"OPsMax", s.OPsMax, ops + "_max", iorUnitIOPS, false},
		{"OPsMin", s.OPsMin, ops + "_min", iorUnitIOPS, false},
		{"OPsMean", s.OPsMean, ops + "_mean", iorUnitIOPS, false},
	})
	if err != nil {
		return err
	}
	labels := iorParamsOf(&r.summaryParams, pt.testID)
	if s.API != "" {
		labels[iorLabelAPI] = s.API
	}
	r.summary = append(r.summary, pt)
	return errors.Join(iorJSONCount(labels, iorLabelTasks, s.NumTasks),
		iorJSONCount(labels, iorLabelTransferSize, s.TransferSize),
		iorJSONCount(labels, results.LabelBlockSize, s.BlockSize),
		iorJSONCount(labels, iorLabelSegments, s.SegmentCount),
		iorJSONFlag(labels, iorLabelFilePerProc, s.FilePerProc))
}

// iorJSONFigure is one figure of a JSON result: its key, value, and the
// metric it becomes.
type iorJSONFigure struct {
	key          string
	value        iorJSONValue
	metric, unit string
	required     bool
}

func (p *iorPoint) addJSONFigures(access string, figs []iorJSONFigure) error {
	if access != "write" && access != "read" {
		return fmt.Errorf("unknown access %q", access)
	}
	for _, f := range figs {
		if !f.value.set {
			if f.required {
				return fmt.Errorf("%s result without %s", access, f.key)
			}
			continue
		}
		v, err := iorValue(f.value.text)
		if err != nil {
			return fmt.Errorf("%s %s: %w", access, f.key, err)
		}
		p.figures = append(p.figures, iorFigure{metric: f.metric, unit: f.unit, value: v})
	}
	return nil
}

func iorJSONCount(labels map[string]string, label string, v *int64) error {
	switch {
	case v == nil:
		return nil
	case *v < 0:
		return fmt.Errorf("%s is negative (%d)", label, *v)
	}
	labels[label] = strconv.FormatInt(*v, 10)
	return nil
}

func iorJSONFlag(labels map[string]string, label string, v *int64) error {
	if v == nil {
		return nil
	}
	b, ok := iorBool(strconv.FormatInt(*v, 10))
	if !ok {
		return fmt.Errorf("%s is %d, not 0 or 1", label, *v)
	}
	labels[label] = b
	return nil
}
