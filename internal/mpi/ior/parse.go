// Package ior turns the output of IOR (its text or its JSON summary) into
// samples.
package ior

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

	"github.com/benchwright/benchwright/internal/mpi/internal/digits"
	"github.com/benchwright/benchwright/internal/results"
)

// IOR metrics and their units, as IOR prints them.
const (
	metricBandwidth = "bandwidth" // MiB/s
	metricIOPS      = "iops"      // ops/s
	metricLatency   = "latency"   // s
	unitBandwidth   = "MiB/s"
	unitIOPS        = "ops/s"
	unitLatency     = "s"
)

// Labels of IOR samples besides tool, tool_version and block_size.
const (
	labelAPI          = "api"
	labelTasks        = "tasks"
	labelTransferSize = "transfer_size"
	labelSegments     = "segments"
	labelFilePerProc  = "file_per_proc"
	labelIteration    = "iteration"
	labelTestID       = "test_id"
)

// Parse turns IOR's output into samples: the default text (IOR 3.0 to
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
func Parse(data []byte) ([]results.Sample, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, results.ErrNoSamples
	}
	if line, ok := errorLine(data); ok {
		return nil, fmt.Errorf("IOR reported an error: %q", line)
	}
	var r *run
	var err error
	if start, ok := findJSON(data, 0); ok {
		r, err = parseJSON(data, start)
	} else if file, ok := summaryFile(data); ok {
		return nil, fmt.Errorf("IOR wrote its results to %s (-O summaryFile=), not to its output: parse that file "+
			"(benchwright parse --tool ior %s)", file, file)
	} else {
		r, err = parseText(data)
	}
	if err != nil {
		return nil, err
	}
	samples, err := r.samples()
	if err != nil {
		return nil, err
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("%w: IOR printed no write or read result", results.ErrNoSamples)
	}
	// IOR's iterations (-i) are repetitions of the run, not parallel parts of
	// one: statistics must not add their bandwidths up.
	for i := range samples {
		if it, err := strconv.Atoi(samples[i].Labels[labelIteration]); err == nil {
			samples[i].Repetition = it
		}
	}
	return samples, nil
}

var (
	// failedRE matches IOR 4's FAIL() messages: "<time>: Process 0: FAILED in <where>, <why>".
	failedRE = regexp.MustCompile(`: Process \d+: FAILED in `)
	// versionRE is the first line IOR prints in text mode.
	versionRE = regexp.MustCompile(`^IOR-(\S+): MPI Coordinated Test of Parallel I/O`)
	// testStartedRE starts a test in IOR 3.0 ("Test 0 started: <date>").
	testStartedRE = regexp.MustCompile(`^Test (\d+) started:`)
	// segmentsRE reads IOR 3.0's "pattern = strided (N segments)".
	segmentsRE = regexp.MustCompile(`\((\d+) segments?\)`)
)

// errorLine finds the first error IOR printed: "ior ERROR: …" (3.x),
// "ERROR: …" (4.x), "ERROR in file (line n): …" (3.0) or a FAIL() message.
// An Open MPI --tag-output prefix ("[1,0]<stderr>:") is allowed.
func errorLine(data []byte) (string, bool) {
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
		if strings.HasPrefix(text, "ERROR:") || strings.HasPrefix(text, "ERROR in ") || failedRE.MatchString(text) {
			return line, true
		}
	}
	return "", false
}

// summaryFile finds IOR's "Writing output to FILE" (-O summaryFile=) in
// an output that holds no results: the results are in FILE.
func summaryFile(data []byte) (string, bool) {
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

// run is what one IOR run printed, in either format.
type run struct {
	version string
	// params are labels per test ID from the test's settings (the text
	// "Options:" block, the JSON "Parameters"); summaryParams those from the
	// summary, which has sizes in exact bytes and so wins.
	params        map[int64]map[string]string
	summaryParams map[int64]map[string]string
	rows          []point // per-iteration results
	summary       []point // summary rows
}

// point is one write or read result: a per-iteration row or a summary row.
type point struct {
	testID    int64
	access    string // write or read
	iteration string // "" for a summary row
	figures   []figure
}

type figure struct {
	metric, unit string
	value        float64
}

// paramsOf returns the labels of test id in m, making them.
func paramsOf(m *map[int64]map[string]string, id int64) map[string]string {
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
func (r *run) samples() ([]results.Sample, error) {
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
		labels[labelIteration] = p.iteration
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

func (r *run) labels(id int64, several bool) map[string]string {
	labels := map[string]string{results.LabelTool: "ior"}
	if r.version != "" {
		labels[results.LabelToolVersion] = r.version
	}
	maps.Copy(labels, r.params[id])
	maps.Copy(labels, r.summaryParams[id])
	if several {
		labels[labelTestID] = strconv.FormatInt(id, 10)
	}
	return labels
}

func (p *point) appendSamples(out []results.Sample, labels map[string]string) []results.Sample {
	for _, f := range p.figures {
		out = append(out, results.Sample{Test: p.access, Metric: f.metric, Value: f.value, Unit: f.unit,
			Labels: maps.Clone(labels)})
	}
	return out
}

// value parses a figure as IOR prints it ("%f"); IOR prints "-" for a
// negative figure and inf or nan (glibc: -nan) for non-finite ones.
func value(tok string) (float64, error) {
	switch strings.ToLower(strings.TrimLeft(tok, "+-")) {
	case "":
		if tok == "-" {
			return 0, errors.New(`"-" (IOR's rendering of a negative figure)`)
		}
	case "nan", "inf", "infinity":
		return 0, fmt.Errorf("%q is not finite", tok)
	}
	if !decimal(tok) {
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

// decimal reports whether s is a plain decimal number: sign, digits with
// at most one point, an optional exponent.
func decimal(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if !digits.All(intPart + frac) { // either part may be empty, not both
		return false
	}
	if hasExp {
		exp = strings.TrimPrefix(strings.TrimPrefix(exp, "-"), "+")
		return digits.All(exp)
	}
	return true
}

// integer validates a count or size IOR printed as an integer.
func integer(tok string) (int64, bool) {
	if len(tok) > 19 || !digits.All(tok) {
		return 0, false
	}
	n, err := strconv.ParseInt(tok, 10, 64)
	return n, err == nil
}

// count validates a count or size IOR printed as an integer and returns
// it in canonical form.
func count(tok string) (string, bool) {
	n, ok := integer(tok)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// sizeUnits are the units of IOR's HumanReadable() (BASE_TWO).
var sizeUnits = map[string]int64{"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	"TiB": 1 << 40, "PiB": 1 << 50}

// exactSize converts a size IOR printed with HumanReadable() to bytes when
// the printed figure is exact ("262144 bytes", "16 MiB"); "126.95 GiB" is
// rounded, so it gives false.
func exactSize(s string) (string, bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return "", false
	}
	mult, ok := sizeUnits[f[1]]
	if !ok {
		return "", false
	}
	v, ok := integer(f[0])
	if !ok || v > math.MaxInt64/mult {
		return "", false
	}
	return strconv.FormatInt(v*mult, 10), true
}

// boolean turns IOR's 0/1 flags into a label value.
func boolean(tok string) (string, bool) {
	switch tok {
	case "0":
		return "false", true
	case "1":
		return "true", true
	}
	return "", false
}

// table is the table the text parser is in.
type table int

const (
	noTable table = iota
	resultsTable
	summaryTable
)

// resultColumns are the columns of IOR's per-iteration table (3.0 to 4.x:
// 3.3 added IOPS and Latency(s)), with the figure each holds; the others are
// known and not reported.
var resultColumns = map[string]figure{
	"access":     {},
	"bw(MiB/s)":  {metric: metricBandwidth, unit: unitBandwidth},
	"IOPS":       {metric: metricIOPS, unit: unitIOPS},
	"Latency(s)": {metric: metricLatency, unit: unitLatency},
	"block(KiB)": {}, "xfer(KiB)": {}, "open(s)": {}, "wr/rd(s)": {}, "close(s)": {}, "total(s)": {},
	"iter": {},
}

// summaryColumns are the columns of "Summary of all tests:" (3.0 has
// no OPs and aggsize; 3.1 adds the OPs; 3.3 Stonewall and aggs(MiB)). StdDev
// follows both Mean(MiB) and Mean(OPs).
var summaryColumns = map[string]figure{
	"Max(MiB)":  {metric: metricBandwidth + "_max", unit: unitBandwidth},
	"Min(MiB)":  {metric: metricBandwidth + "_min", unit: unitBandwidth},
	"Mean(MiB)": {metric: metricBandwidth + "_mean", unit: unitBandwidth},
	"Max(OPs)":  {metric: metricIOPS + "_max", unit: unitIOPS},
	"Min(OPs)":  {metric: metricIOPS + "_min", unit: unitIOPS},
	"Mean(OPs)": {metric: metricIOPS + "_mean", unit: unitIOPS},
	"Operation": {}, "StdDev": {}, "Mean(s)": {}, "Stonewall(s)": {}, "Stonewall(MiB)": {}, "Test#": {},
	"#Tasks": {}, "tPN": {}, "reps": {}, "fPP": {}, "reord": {}, "reordoff": {}, "reordrand": {}, "seed": {},
	"segcnt": {}, "blksiz": {}, "xsize": {}, "aggsize": {}, "aggs(MiB)": {}, "API": {}, "RefNum": {},
}

// textParser reads IOR's text output line by line.
type textParser struct {
	run      run
	runs     int  // "IOR-<version>:" lines
	tables   bool // a Results or summary header was seen
	csv      bool // a summaryFormat=CSV header was seen
	finished bool // IOR's closing "Finished" line was seen
	testID   int64
	sep      string // key/value separator of the settings block the parser is in
	table    table
	cols     []string
	rows     int   // complete result rows
	err      error // the first malformed line
}

func parseText(data []byte) (*run, error) {
	p := &textParser{}
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

func (p *textParser) line(n int, line string) {
	fields := strings.Fields(line)
	switch {
	case len(fields) == 0:
		p.sep = "" // a blank line ends a settings block
	case versionRE.MatchString(line):
		p.runs++
		p.run.version = versionRE.FindStringSubmatch(line)[1]
	case fields[0] == "access" && len(fields) > 1 && fields[1] == "bw(MiB/s)":
		p.startTable(n, line, resultsTable, resultColumns, "bw(MiB/s)", "iter")
	case fields[0] == "Operation" && len(fields) > 1 && fields[1] == "Max(MiB)":
		p.startTable(n, line, summaryTable, summaryColumns, "Max(MiB)", "Min(MiB)", "Mean(MiB)")
	case strings.HasPrefix(line, "access,bw(MiB/s)"):
		p.csv = true
	case line == "Options:": // IOR 3.1+: "key : value"
		p.sep, p.table = ":", noTable
	case line == "Summary:": // IOR 3.0: "key = value"
		p.sep, p.table = "=", noTable
	case p.sep != "":
		p.setting(line)
	case p.table == resultsTable && (fields[0] == "write" || fields[0] == "read" || fields[0] == "remove"):
		p.resultRow(n, line, fields)
	case p.table == summaryTable && (fields[0] == "write" || fields[0] == "read"):
		p.summaryRow(n, line, fields)
	default:
		p.keyValue(n, line)
	}
}

// fail records the first malformed line.
func (p *textParser) fail(n int, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("line %d: %s", n, fmt.Sprintf(format, args...))
	}
}

// startTable checks a table header: every column known, the required ones
// present.
func (p *textParser) startTable(n int, line string, t table, known map[string]figure, required ...string) {
	p.tables, p.sep, p.table = true, "", noTable
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
func (p *textParser) keyValue(n int, line string) {
	if m := testStartedRE.FindStringSubmatch(line); m != nil {
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
		p.finished, p.table = true, noTable
	}
}

func (p *textParser) startTest(n int, id string) {
	p.table = noTable
	v, ok := integer(id)
	if !ok {
		p.fail(n, "test ID %q is not a number", id)
		return
	}
	p.testID = v
}

// setting reads one line of the test's settings ("Options:" in 3.1+,
// "Summary:" in 3.0) into labels.
func (p *textParser) setting(line string) {
	key, value, ok := strings.Cut(line, p.sep)
	if !ok {
		return
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	labels := paramsOf(&p.run.params, p.testID)
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
		set(labelAPI, value, value != "")
	case "tasks", "clients": // 3.0: "clients = 1 (1 per node)"
		set(countLabel(labelTasks, first))
	case "segments":
		set(countLabel(labelSegments, value))
	case "pattern": // 3.0 -v: "strided (4 segments)"
		if m := segmentsRE.FindStringSubmatch(value); m != nil {
			set(countLabel(labelSegments, m[1]))
		}
	case "access":
		fpp := strings.HasPrefix(value, "file-per-process")
		set(labelFilePerProc, strconv.FormatBool(fpp), fpp || strings.HasPrefix(value, "single-shared-file"))
	case "xfersize":
		v, ok := exactSize(value)
		set(labelTransferSize, v, ok)
	case "blocksize":
		v, ok := exactSize(value)
		set(results.LabelBlockSize, v, ok)
	}
}

func countLabel(label, tok string) (string, string, bool) {
	v, ok := count(tok)
	return label, v, ok
}

// resultRow reads one row of the per-iteration table; "remove" rows are
// checked and skipped.
func (p *textParser) resultRow(n int, line string, fields []string) {
	if len(fields) != len(p.cols) {
		p.fail(n, "IOR result row has %d fields, its header %d: %q", len(fields), len(p.cols), line)
		return
	}
	if fields[0] == "remove" {
		return
	}
	pt := point{testID: p.testID, access: fields[0]}
	for i, col := range p.cols {
		if col == "iter" {
			it, ok := count(fields[i])
			if !ok {
				p.fail(n, "IOR %s row: iteration %q is not a number", fields[0], fields[i])
				return
			}
			pt.iteration = it
			continue
		}
		if fig := resultColumns[col]; fig.metric != "" {
			v, err := value(fields[i])
			if err != nil {
				p.fail(n, "IOR %s row, %s: %v", fields[0], col, err)
				return
			}
			pt.figures = append(pt.figures, figure{metric: fig.metric, unit: fig.unit, value: v})
		}
	}
	p.rows++
	p.run.rows = append(p.run.rows, pt)
}

// summaryRow reads one row of "Summary of all tests:": its figures and the
// test's parameters (sizes in bytes).
func (p *textParser) summaryRow(n int, line string, fields []string) {
	if len(fields) != len(p.cols) {
		p.fail(n, "IOR summary row has %d fields, its header %d: %q", len(fields), len(p.cols), line)
		return
	}
	pt := point{access: fields[0]}
	labels := map[string]string{}
	for i, col := range p.cols {
		if err := summaryCell(&pt, labels, col, fields[i]); err != nil {
			p.fail(n, "IOR summary %s row, %s: %v", fields[0], col, err)
			return
		}
	}
	maps.Copy(paramsOf(&p.run.summaryParams, pt.testID), labels)
	p.run.summary = append(p.run.summary, pt)
}

func summaryCell(pt *point, labels map[string]string, col, tok string) error {
	ok := true
	switch col {
	case "Test#":
		pt.testID, ok = integer(tok)
	case "#Tasks":
		labels[labelTasks], ok = count(tok)
	case "segcnt":
		labels[labelSegments], ok = count(tok)
	case "blksiz":
		labels[results.LabelBlockSize], ok = count(tok)
	case "xsize":
		labels[labelTransferSize], ok = count(tok)
	case "fPP":
		labels[labelFilePerProc], ok = boolean(tok)
	case "API":
		labels[labelAPI] = tok
	default:
		fig := summaryColumns[col]
		if fig.metric == "" {
			return nil
		}
		f, err := value(tok)
		if err != nil {
			return err
		}
		pt.figures = append(pt.figures, figure{metric: fig.metric, unit: fig.unit, value: f})
	}
	if !ok {
		return fmt.Errorf("%q is not a valid value", tok)
	}
	return nil
}

// jsonDoc is the part of IOR's JSON summary (-O summaryFormat=JSON, IOR
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
type jsonDoc struct {
	Version string        `json:"Version"`
	Tests   []jsonTest    `json:"tests"`
	Summary []jsonSummary `json:"summary"`
}

type jsonTest struct {
	TestID     *int64          `json:"TestID"`
	Parameters jsonParams      `json:"Parameters"`
	Options    jsonOptions     `json:"Options"`
	Results    json.RawMessage `json:"Results"`
}

// iterations returns the test's results per iteration, from either shape of
// Results.
func (t *jsonTest) iterations() ([][]jsonResult, error) {
	if len(t.Results) == 0 || string(t.Results) == "null" {
		return nil, nil
	}
	var nested [][]jsonResult
	if err := json.Unmarshal(t.Results, &nested); err == nil {
		return nested, nil
	}
	var flat []jsonResult
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

// jsonParams are the test parameters IOR prints in exact units.
type jsonParams struct {
	API          string `json:"api"`
	TransferSize *int64 `json:"transferSize"`
	BlockSize    *int64 `json:"blockSize"`
	SegmentCount *int64 `json:"segmentCount"`
	FilePerProc  *int64 `json:"filePerProc"`
}

// jsonOptions is the "Options" section: the only place with the task count.
type jsonOptions struct {
	Tasks *int64 `json:"tasks"`
}

type jsonResult struct {
	Access  string    `json:"access"`
	BwMiB   jsonValue `json:"bwMiB"`
	IOPS    jsonValue `json:"iops"`
	Latency jsonValue `json:"latency"`
}

type jsonSummary struct {
	Operation    string    `json:"operation"`
	API          string    `json:"API"`
	TestID       *int64    `json:"TestID"`
	NumTasks     *int64    `json:"numTasks"`
	TransferSize *int64    `json:"transferSize"`
	BlockSize    *int64    `json:"blockSize"`
	SegmentCount *int64    `json:"segmentCount"`
	FilePerProc  *int64    `json:"filePerProc"`
	BwMax        jsonValue `json:"bwMaxMIB"`
	BwMin        jsonValue `json:"bwMinMIB"`
	BwMean       jsonValue `json:"bwMeanMIB"`
	OPsMax       jsonValue `json:"OPsMax"`
	OPsMin       jsonValue `json:"OPsMin"`
	OPsMean      jsonValue `json:"OPsMean"`
}

// jsonValue is a figure as IOR printed it ("%.4f"; IOR 4 quotes an
// infinite one, "inf"), checked by value.
type jsonValue struct {
	text string
	set  bool
}

func (v *jsonValue) UnmarshalJSON(b []byte) error {
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

// findJSON returns the offset, at or after from, of the '{' that opens
// IOR's JSON document: its first key is "Version".
func findJSON(data []byte, from int) (int, bool) {
	return results.FindJSONObject(data, from, "Version")
}

func parseJSON(data []byte, start int) (*run, error) {
	end := results.JSONObjectLen(data[start:])
	if end < 0 {
		return nil, errors.New("IOR JSON output is truncated: the document never closes, so the run did not finish")
	}
	if _, ok := findJSON(data, start+end); ok {
		return nil, errors.New("the output holds more than one IOR JSON document; parse one run at a time")
	}
	var doc jsonDoc
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
	r := &run{version: doc.Version}
	for i := range doc.Tests {
		if err := r.addJSONTest(&doc.Tests[i], i); err != nil {
			return nil, err
		}
	}
	for i := range doc.Summary {
		if err := r.addJSONSummary(&doc.Summary[i]); err != nil {
			return nil, fmt.Errorf("IOR JSON summary %d: %w", i, err)
		}
	}
	return r, nil
}

func (r *run) addJSONTest(t *jsonTest, index int) error {
	id := int64(index)
	if t.TestID != nil {
		id = *t.TestID
	}
	labels := paramsOf(&r.params, id)
	p := &t.Parameters
	if p.API != "" {
		labels[labelAPI] = p.API
	}
	err := errors.Join(jsonCount(labels, labelTransferSize, p.TransferSize),
		jsonCount(labels, results.LabelBlockSize, p.BlockSize),
		jsonCount(labels, labelSegments, p.SegmentCount),
		jsonFlag(labels, labelFilePerProc, p.FilePerProc),
		jsonCount(labels, labelTasks, t.Options.Tasks))
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
			pt := point{testID: id, access: res.Access, iteration: strconv.Itoa(it)}
			if err := pt.addJSONFigures(res.Access, []jsonFigure{
				{"bwMiB", res.BwMiB, metricBandwidth, unitBandwidth, true},
				{"iops", res.IOPS, metricIOPS, unitIOPS, false},
				{"latency", res.Latency, metricLatency, unitLatency, false},
			}); err != nil {
				return fmt.Errorf("IOR JSON test %d, iteration %d: %w", id, it, err)
			}
			r.rows = append(r.rows, pt)
		}
	}
	return nil
}

func (r *run) addJSONSummary(s *jsonSummary) error {
	var pt point
	if s.TestID != nil {
		pt.testID = *s.TestID
	}
	pt.access = s.Operation
	bw, ops := metricBandwidth, metricIOPS
	err := pt.addJSONFigures(s.Operation, []jsonFigure{
		{"bwMaxMIB", s.BwMax, bw + "_max", unitBandwidth, true},
		{"bwMinMIB", s.BwMin, bw + "_min", unitBandwidth, true},
		{"bwMeanMIB", s.BwMean, bw + "_mean", unitBandwidth, true},
		{"OPsMax", s.OPsMax, ops + "_max", unitIOPS, false},
		{"OPsMin", s.OPsMin, ops + "_min", unitIOPS, false},
		{"OPsMean", s.OPsMean, ops + "_mean", unitIOPS, false},
	})
	if err != nil {
		return err
	}
	labels := paramsOf(&r.summaryParams, pt.testID)
	if s.API != "" {
		labels[labelAPI] = s.API
	}
	r.summary = append(r.summary, pt)
	return errors.Join(jsonCount(labels, labelTasks, s.NumTasks),
		jsonCount(labels, labelTransferSize, s.TransferSize),
		jsonCount(labels, results.LabelBlockSize, s.BlockSize),
		jsonCount(labels, labelSegments, s.SegmentCount),
		jsonFlag(labels, labelFilePerProc, s.FilePerProc))
}

// jsonFigure is one figure of a JSON result: its key, value, and the
// metric it becomes.
type jsonFigure struct {
	key          string
	value        jsonValue
	metric, unit string
	required     bool
}

func (p *point) addJSONFigures(access string, figs []jsonFigure) error {
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
		v, err := value(f.value.text)
		if err != nil {
			return fmt.Errorf("%s %s: %w", access, f.key, err)
		}
		p.figures = append(p.figures, figure{metric: f.metric, unit: f.unit, value: v})
	}
	return nil
}

func jsonCount(labels map[string]string, label string, v *int64) error {
	switch {
	case v == nil:
		return nil
	case *v < 0:
		return fmt.Errorf("%s is negative (%d)", label, *v)
	}
	labels[label] = strconv.FormatInt(*v, 10)
	return nil
}

func jsonFlag(labels map[string]string, label string, v *int64) error {
	if v == nil {
		return nil
	}
	b, ok := boolean(strconv.FormatInt(*v, 10))
	if !ok {
		return fmt.Errorf("%s is %d, not 0 or 1", label, *v)
	}
	labels[label] = b
	return nil
}
