// Package osu turns the output of the OSU Micro-Benchmarks (OMB) MPI
// benchmarks into samples.
package osu

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/mpi/internal/digits"
	"github.com/benchwright/benchwright/internal/results"
)

// Labels of OSU samples besides the shared ones of package results.
const (
	labelAccelerator  = "accelerator"     // -CUDA, -ROCM, ... in the title: cuda, rocm, openacc, ...
	labelSrcBuffer    = "src_buffer"      // host, device or managed (accelerator builds)
	labelDstBuffer    = "dst_buffer"      // idem, for the receiving rank
	labelDatatype     = "datatype"        // "# Datatype: MPI_CHAR." (OMB 7)
	labelPairs        = "pairs"           // osu_mbw_mr: "[ pairs: N ]"
	labelWindowSize   = "window_size"     // osu_mbw_mr: "[ window size: N ]" or a -W column
	labelWindow       = "window_creation" // one-sided: "# Window creation: MPI_Win_allocate"
	labelSync         = "synchronization" // one-sided: "# Synchronization: MPI_Win_flush"
	labelIterations   = "iterations"      // the Iterations column (-f)
	labelValidation   = "validation"      // "pass" when the row has a Validation column
	labelTransmitSize = "transmit_size"   // bytes actually sent with derived datatypes (--ddt)
)

// tests maps the normalized titles of OMB's MPI benchmarks (titleKey of
// the BENCHMARK string without "OSU " and without its accelerator suffix) to
// the benchmark's program name, which is the sample's test.
var tests = testTable(map[string]string{
	// point-to-point
	"MPI Latency Test":                                   "osu_latency",
	"MPI Bandwidth Test":                                 "osu_bw",
	"MPI Bi-Directional Bandwidth Test":                  "osu_bibw",
	"MPI Multi Latency Test":                             "osu_multi_lat",
	"MPI Multiple Bandwidth / Message Rate Test":         "osu_mbw_mr",
	"MPI Multi-threaded Latency Test":                    "osu_latency_mt",
	"MPI Multi-process Latency Test":                     "osu_latency_mp",
	"MPI Latency Persistent Test":                        "osu_latency_persistent",
	"MPI Bandwidth Persistent Test":                      "osu_bw_persistent",
	"MPI Bi-Directional Bandwidth Persistent Test":       "osu_bibw_persistent",
	"MPI Partitioned Latency Test":                       "osu_partitioned_latency",
	"MPI_Put Latency Test":                               "osu_put_latency",
	"MPI_Get latency Test":                               "osu_get_latency",
	"MPI_Put Bandwidth Test":                             "osu_put_bw",
	"MPI_Get Bandwidth Test":                             "osu_get_bw",
	"MPI_Put Bi-directional Bandwidth Test":              "osu_put_bibw",
	"MPI_Accumulate latency Test":                        "osu_acc_latency",
	"MPI_Get_accumulate latency Test":                    "osu_get_acc_latency",
	"MPI_Fetch_and_op latency Test":                      "osu_fop_latency",
	"MPI_Compare_and_swap latency Test":                  "osu_cas_latency",
	"MPI Allgather Latency Test":                         "osu_allgather",
	"MPI Allgatherv Latency Test":                        "osu_allgatherv",
	"MPI Allreduce Latency Test":                         "osu_allreduce",
	"MPI All-to-All Personalized Exchange Latency Test":  "osu_alltoall",
	"MPI All-to-Allv Personalized Exchange Latency Test": "osu_alltoallv",
	"MPI All-to-Allw Personalized Exchange Latency Test": "osu_alltoallw",
	"MPI Barrier Latency Test":                           "osu_barrier",
	"MPI Broadcast Latency Test":                         "osu_bcast",
	"MPI Gather Latency Test":                            "osu_gather",
	"MPI Gatherv Latency Test":                           "osu_gatherv",
	"MPI Reduce Latency Test":                            "osu_reduce",
	"MPI Reduce_scatter Latency Test":                    "osu_reduce_scatter",
	"MPI Reduce_scatter_block Latency Test":              "osu_reduce_scatter_block",
	"MPI Scatter Latency Test":                           "osu_scatter",
	"MPI Scatterv Latency Test":                          "osu_scatterv",
	"MPI Neighbor Allgather Latency Test":                "osu_neighbor_allgather",
	"MPI Neighbor Allgatherv Latency Test":               "osu_neighbor_allgatherv",
	"MPI Neighbor Alltoall Latency Test":                 "osu_neighbor_alltoall",
	"MPI Neighbor Alltoallv Latency Test":                "osu_neighbor_alltoallv",
	"MPI Neighbor Alltoallw Latency Test":                "osu_neighbor_alltoallw",
	// non-blocking collectives ("Non-Blocking" in some releases; the
	// All-to-All titles lost a space in OMB 7: "ExchangeLatency")
	"MPI Non-blocking Allgather Latency Test":                         "osu_iallgather",
	"MPI Non-blocking Allgatherv Latency Test":                        "osu_iallgatherv",
	"MPI Non-blocking Allreduce Latency Test":                         "osu_iallreduce",
	"MPI Non-blocking All-to-All Latency Test":                        "osu_ialltoall",
	"MPI Non-blocking All-to-All Personalized Exchange Latency Test":  "osu_ialltoall",
	"MPI Non-blocking All-to-Allv Personalized Exchange Latency Test": "osu_ialltoallv",
	"MPI Non-blocking All-to-Allw Personalized Exchange Latency Test": "osu_ialltoallw",
	"MPI Non-blocking Barrier Latency Test":                           "osu_ibarrier",
	"MPI Non-blocking Broadcast Latency Test":                         "osu_ibcast",
	"MPI Non-blocking Gather Latency Test":                            "osu_igather",
	"MPI Non-blocking Gatherv Latency Test":                           "osu_igatherv",
	"MPI Non-blocking Reduce Latency Test":                            "osu_ireduce",
	"MPI Non-blocking Reduce_scatter Latency Test":                    "osu_ireduce_scatter",
	"MPI Non-blocking Reduce_scatter_block Latency Test":              "osu_ireduce_scatter_block",
	"MPI Non-blocking Scatter Latency Test":                           "osu_iscatter",
	"MPI Non-blocking Scatterv Latency Test":                          "osu_iscatterv",
	"MPI Non-blocking Neighbor Allgather Latency Test":                "osu_ineighbor_allgather",
	"MPI Non-blocking Neighbor Allgatherv Latency Test":               "osu_ineighbor_allgatherv",
	"MPI Non-blocking Neighbor Alltoall Latency Test":                 "osu_ineighbor_alltoall",
	"MPI Non-blocking Neighbor Alltoallv Latency Test":                "osu_ineighbor_alltoallv",
	"MPI Non-blocking Neighbor Alltoallw Latency Test":                "osu_ineighbor_alltoallw",
})

// testTable keys titles by titleKey.
func testTable(titles map[string]string) map[string]string {
	m := make(map[string]string, len(titles))
	for title, test := range titles {
		m[titleKey(title)] = test
	}
	return m
}

// titleKey folds the spellings of a title that OMB releases differ in:
// case, spaces and hyphens.
func titleKey(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '/' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// colKind says what a table column holds.
type colKind int

const (
	colFigure       colKind = iota // a figure: one sample per row
	colSize                        // Size: label msg_size
	colIterations                  // Iterations (-f): label iterations
	colValidation                  // Validation: Pass, or Fail (an error)
	colTransmitSize                // Transmit Size (--ddt): label transmit_size
)

// column maps one column of an OSU table to a metric or label.
type column struct {
	kind   colKind
	metric string
	unit   string
	window string // window size of an osu_mbw_mr -W column: label window_size
}

// columnTitles are the column titles OMB 5.x to 7.x print (osu_util*.c,
// osu_mbw_mr.c); "bandwidth" becomes "bibandwidth" in bi-directional tests.
// Non-blocking collectives (osu_i*) print their own set: overall time,
// compute, pure communication latency and overlap. Any other title is an
// error, never a guess.
var columnTitles = map[string]column{
	"Size":             {kind: colSize},
	"Latency (us)":     {metric: "latency", unit: "us"},
	"Latency(us)":      {metric: "latency", unit: "us"},
	"Avg Latency(us)":  {metric: "latency", unit: "us"},
	"Avg Latency (us)": {metric: "latency", unit: "us"},
	"Min Latency(us)":  {metric: "latency_min", unit: "us"},
	"Max Latency(us)":  {metric: "latency_max", unit: "us"},
	"Iterations":       {kind: colIterations},
	"Bandwidth (MB/s)": {metric: "bandwidth", unit: "MB/s"},
	"MB/s":             {metric: "bandwidth", unit: "MB/s"},
	"Messages/s":       {metric: "message_rate", unit: "messages/s"},
	"Validation":       {kind: colValidation},
	"Transmit Size":    {kind: colTransmitSize},
	"Overall(us)":      {metric: "overall_latency", unit: "us"},
	"Compute(us)":      {metric: "compute_time", unit: "us"},
	"Coll. Init(us)":   {metric: "init_time", unit: "us"},
	"MPI_Test(us)":     {metric: "test_time", unit: "us"},
	"MPI_Wait(us)":     {metric: "wait_time", unit: "us"},
	"Pure Comm.(us)":   {metric: "comm_latency", unit: "us"},
	"Min Comm.(us)":    {metric: "comm_latency_min", unit: "us"},
	"Max Comm.(us)":    {metric: "comm_latency_max", unit: "us"},
	"Overlap(%)":       {metric: "overlap", unit: "%"},
}

var (
	// headerRE is the first line of every OMB benchmark:
	// "# OSU MPI-CUDA Bandwidth Test v5.8", "# OSU MPI_Put Latency Test v7.5".
	headerRE = regexp.MustCompile(`^# OSU (.*?)(?:\s+v(\d+)((?:\.\w+)*)\S*)?$`)
	// accelerator is the suffix an accelerator build adds to "MPI" or
	// "MPI_<op>" in the title.
	accelerator = regexp.MustCompile(`(?i)-(CUDA MANAGED|CUDA|OPENACC|ROCM|CXL|SYCL|MANAGED)\b`)
	// percentile is a --tail-lat column: "P99 Tail Lat(us)", "P50 Tail BW(MB/s)".
	percentile = regexp.MustCompile(`^P(\d{1,2}) Tail (Lat\(us\)|BW\(MB/s\))(?:\s|$)`)
	datatype   = regexp.MustCompile(`^Datatype: (\S+?)\.?$`)
	// buffers: "Send Buffer on HOST (H) and Receive Buffer on DEVICE (D)",
	// "Rank 0 Memory on DEVICE (D) and Rank 1 Memory on HOST (H)".
	buffers         = regexp.MustCompile(`^(?:Send Buffer|Rank 0 Memory) on (\w+) \(\w+\) and (?:Receive Buffer|Rank 1 Memory) on (\w+) \(\w+\)`)
	pairs           = regexp.MustCompile(`^\[ pairs: (\d+) \] \[ window size: (\d+|varied) \]`)
	window          = regexp.MustCompile(`^Window creation: (\S+)`)
	synchronization = regexp.MustCompile(`^Synchronization: (\S+)`)
	// rankPrefix is what launchers put before each line: Open MPI
	// --tag-output "[1,0]<stdout>:", MPICH/Intel MPI -prepend-rank "[0] ",
	// srun -l and flux -l "0: ".
	rankPrefix = regexp.MustCompile(`^(?:\[(\d+),(\d+)\]<(\w+)>: ?|\[(\d+)\] |\s*(\d+): )`)
)

// Parse turns the output of OSU Micro-Benchmarks (OMB 5.x to 7.x) MPI
// benchmarks into samples, one per row and figure. The test is the benchmark's
// program name read from its header ("# OSU MPI Latency Test v7.5" is
// osu_latency, "# OSU MPI-CUDA Bandwidth Test" osu_bw); several benchmarks
// in one log each give their samples.
//
// Metrics: latency ("Latency (us)", "Avg Latency(us)"), latency_min,
// latency_max and latency_pNN (--tail-lat) in us; bandwidth (osu_bw,
// osu_mbw_mr, one-sided) or bibandwidth (osu_bibw, osu_put_bibw) and their
// _pNN in MB/s (10^6 B/s, as OMB computes it); message_rate in messages/s;
// for non-blocking collectives overall_latency, compute_time, init_time,
// test_time, wait_time, comm_latency, comm_latency_min, comm_latency_max (us)
// and overlap (%). Labels: tool=osu, tool_version, msg_size (bytes; none for
// barriers), iterations (-f), validation=pass, datatype, accelerator,
// src_buffer, dst_buffer, pairs, window_size, window_creation,
// synchronization and transmit_size when the output shows them.
//
// Launcher rank prefixes are removed: lines not prefixed as the header is
// (other ranks, standard error, the launcher's own messages) are skipped, as
// is the noise around the tables. Inside a table (from its column
// header to a blank line or the next header) a line that starts with a
// number must be a complete row: otherwise, as for an unknown column or test,
// an OMB version outside 5.x to 7.x, a benchmark without rows, a negative or
// non-finite figure or a failed validation, Parse returns an error naming
// the line. Output without any OSU header is not OSU output; blank output is
// results.ErrNoSamples.
func Parse(data []byte) ([]results.Sample, error) {
	p := parser{}
	for line := range strings.Lines(string(data)) {
		p.lineNo++
		if err := p.parseLine(line); err != nil {
			return nil, err
		}
	}
	if err := p.endRun(); err != nil {
		return nil, err
	}
	if !p.seenHeader {
		if strings.TrimSpace(string(data)) == "" {
			return nil, fmt.Errorf("blank OSU output: %w", results.ErrNoSamples)
		}
		return nil, fmt.Errorf("not OSU micro-benchmarks output: no %q header line (the output starts with %q)",
			"# OSU ...", results.FirstLine(data))
	}
	return p.samples, nil
}

// parser holds the state of one pass over the output.
type parser struct {
	lineNo     int
	seenHeader bool
	run        *run
	samples    []results.Sample
}

// run is one benchmark's output, from its header line on.
type run struct {
	test    string
	line    int               // of its header
	tag     string            // its launcher prefix: lines with another are not its output
	labels  map[string]string // labels of all its samples
	cols    []column          // the current table's columns; nil outside a table
	profile column            // metric of the next osu_mbw_mr -W window table
	rows    int
}

func (p *parser) parseLine(raw string) error {
	line, tag, ok := stripPrefix(strings.TrimRight(raw, "\r\n"))
	if !ok {
		return nil
	}
	text := strings.TrimSpace(line)
	if i := strings.Index(text, "# OSU "); i >= 0 {
		return p.startRun(text[i:], tag)
	}
	r := p.run
	switch {
	case r == nil || tag != r.tag:
		return nil // noise before the first header, or not the benchmark's own output
	case text == "":
		r.cols = nil
		return nil
	case strings.HasPrefix(text, "DATA VALIDATION ERROR"):
		return fmt.Errorf("line %d: %s failed validation: %q", p.lineNo, r.test, text)
	case text[0] == '#':
		return p.comment(strings.TrimSpace(text[1:]))
	case r.cols != nil && rowLike(text):
		return p.row(text)
	}
	return nil // noise: launcher and library messages, harness trailers
}

// stripPrefix removes a launcher's rank prefix and returns it as tag; ok
// is false for lines a launcher tagged as standard error.
func stripPrefix(line string) (rest, tag string, ok bool) {
	if line == "" || (line[0] != '[' && strings.IndexByte(line, ':') < 0) {
		return line, "", true
	}
	m := rankPrefix.FindStringSubmatchIndex(line)
	if m == nil {
		return line, "", true
	}
	if m[6] >= 0 && line[m[6]:m[7]] != "stdout" {
		return "", "", false
	}
	return line[m[1]:], strings.TrimSpace(line[:m[1]]), true
}

// startRun ends the current benchmark and starts the one of header.
func (p *parser) startRun(header, tag string) error {
	p.seenHeader = true
	if err := p.endRun(); err != nil {
		return err
	}
	test, labels, err := parseHeader(header)
	if err != nil {
		return fmt.Errorf("line %d: %w", p.lineNo, err)
	}
	p.run = &run{test: test, line: p.lineNo, tag: tag, labels: labels}
	return nil
}

// parseHeader reads the test, the accelerator and the version from a
// benchmark's header line.
func parseHeader(header string) (test string, labels map[string]string, err error) {
	m := headerRE.FindStringSubmatch(header)
	if m == nil {
		return "", nil, fmt.Errorf("unrecognized OSU header %q", header)
	}
	labels = map[string]string{results.LabelTool: "osu"}
	title := m[1]
	if a := accelerator.FindStringSubmatchIndex(title); a != nil {
		labels[labelAccelerator] = strings.ReplaceAll(strings.ToLower(title[a[2]:a[3]]), " ", "_")
		title = title[:a[0]] + title[a[1]:]
	}
	if m[2] != "" {
		if major, _ := strconv.Atoi(m[2]); major < 5 || major > 7 {
			return "", nil, fmt.Errorf("OSU version %s%s is not supported: %q (this parser reads OMB 5.x to 7.x)",
				m[2], m[3], header)
		}
		labels[results.LabelToolVersion] = m[2] + m[3]
	}
	test, ok := tests[titleKey(title)]
	if !ok {
		return "", nil, fmt.Errorf("unknown OSU benchmark %q in header %q", title, header)
	}
	return test, labels, nil
}

// endRun checks that the current benchmark, if any, printed rows.
func (p *parser) endRun() error {
	r := p.run
	p.run = nil
	if r == nil || r.rows > 0 {
		return nil
	}
	return fmt.Errorf("line %d: %s output has a header but no results (truncated output?)", r.line, r.test)
}

// comment reads a line starting with "#" (text is what follows it): a column
// header, or a setting that becomes a label.
func (p *parser) comment(text string) error {
	r := p.run
	// A column header starts with Size, or with a figure in tables without
	// sizes (barriers).
	if c, _, ok := matchColumn(text); ok && (c.kind == colSize || c.kind == colFigure) {
		cols, err := columns(text, r.test)
		if err != nil {
			return fmt.Errorf("line %d: %w", p.lineNo, err)
		}
		r.cols = cols
		return nil
	}
	if windows, ok := windowSizes(text); ok && r.profile.metric != "" {
		r.cols = windowColumns(r.profile, windows)
		return nil
	}
	return p.setting(text)
}

// setting records the labels and table kinds announced by comment lines;
// other comments are ignored.
func (p *parser) setting(text string) error {
	r := p.run
	if m := datatype.FindStringSubmatch(text); m != nil {
		r.labels[labelDatatype] = m[1]
	} else if m := buffers.FindStringSubmatch(text); m != nil {
		r.labels[labelSrcBuffer] = strings.ToLower(m[1])
		r.labels[labelDstBuffer] = strings.ToLower(m[2])
	} else if m := pairs.FindStringSubmatch(text); m != nil {
		r.labels[labelPairs] = m[1]
		if m[2] != "varied" {
			r.labels[labelWindowSize] = m[2]
		}
	} else if m := window.FindStringSubmatch(text); m != nil {
		r.labels[labelWindow] = m[1]
	} else if m := synchronization.FindStringSubmatch(text); m != nil {
		r.labels[labelSync] = m[1]
	} else if strings.HasPrefix(text, "Uni-directional Bandwidth (MB/sec)") {
		r.profile = column{metric: "bandwidth", unit: "MB/s"}
	} else if strings.HasPrefix(text, "Message Rate Profile") {
		r.profile = column{metric: "message_rate", unit: "messages/s"}
	}
	return nil
}

// matchColumn matches the column title that text starts with, the longest
// if several do; n is its length.
func matchColumn(text string) (col column, n int, ok bool) {
	if m := percentile.FindStringSubmatch(text); m != nil {
		metric := "latency_p" + m[1]
		unit := "us"
		if strings.HasPrefix(m[2], "BW") {
			metric, unit = "bandwidth_p"+m[1], "MB/s"
		}
		return column{metric: metric, unit: unit}, len(strings.TrimSpace(m[0])), true
	}
	for title, c := range columnTitles {
		if len(title) > n && len(text) >= len(title) && strings.EqualFold(text[:len(title)], title) &&
			(len(text) == len(title) || text[len(title)] == ' ' || text[len(title)] == '\t') {
			col, n, ok = c, len(title), true
		}
	}
	return col, n, ok
}

// columns maps the titles of a column header line to columns of test.
func columns(text, test string) ([]column, error) {
	var cols []column
	seen := map[column]bool{}
	figures := 0
	for rest := text; rest != ""; rest = strings.TrimLeft(rest, " \t") {
		c, n, ok := matchColumn(rest)
		if !ok {
			name, _, _ := strings.Cut(strings.ReplaceAll(rest, "\t", "  "), "  ")
			return nil, fmt.Errorf("unknown OSU column %q in %q", name, "# "+text)
		}
		if c.metric == "bandwidth" || strings.HasPrefix(c.metric, "bandwidth_") {
			if strings.Contains(test, "bibw") {
				c.metric = "bi" + c.metric
			}
		}
		if seen[c] || (c.kind == colSize && len(cols) > 0) {
			return nil, fmt.Errorf("OSU column %q repeated or out of place in %q", rest[:n], "# "+text)
		}
		seen[c] = true
		if c.kind == colFigure {
			figures++
		}
		cols = append(cols, c)
		rest = rest[n:]
	}
	if figures == 0 {
		return nil, fmt.Errorf("OSU column header without figures: %q", "# "+text)
	}
	return cols, nil
}

// windowSizes reads the header of an osu_mbw_mr -W table: "#   1   2   4 ...".
func windowSizes(text string) ([]string, bool) {
	fields := strings.Fields(text)
	for _, f := range fields {
		if !digits.All(f) {
			return nil, false
		}
	}
	return fields, len(fields) > 0
}

// windowColumns are the columns of an osu_mbw_mr -W table: the size, then
// the profile's metric for each window size.
func windowColumns(profile column, windows []string) []column {
	cols := []column{{kind: colSize}}
	for _, w := range windows {
		c := profile
		c.window = w
		cols = append(cols, c)
	}
	return cols
}

// rowLike tells a line that is meant as a table row, whose first field is
// a number (possibly negative or not finite), from the messages that
// launchers and libraries interleave.
func rowLike(text string) bool {
	first, _, _ := strings.Cut(text, " ")
	first, _, _ = strings.Cut(first, "\t")
	switch strings.TrimLeft(strings.ToLower(first), "+-") {
	case "nan", "inf", "infinity":
		return true
	}
	if first[0] == '-' || first[0] == '+' {
		first = first[1:]
	}
	if first == "" || (first[0] != '.' && (first[0] < '0' || first[0] > '9')) {
		return false
	}
	return strings.Trim(first, "0123456789.eE+-") == ""
}

// row turns one table row into samples.
func (p *parser) row(text string) error {
	r := p.run
	fields := strings.Fields(text)
	if len(fields) != len(r.cols) {
		return fmt.Errorf("line %d: malformed %s row: %d fields, the column header has %d: %q",
			p.lineNo, r.test, len(fields), len(r.cols), text)
	}
	labels := maps.Clone(r.labels)
	values := make([]float64, len(fields))
	for i, f := range fields {
		v, err := field(r.cols[i], f, labels)
		if err != nil {
			return fmt.Errorf("line %d: %s row %q: %w", p.lineNo, r.test, text, err)
		}
		values[i] = v
	}
	last := len(r.cols) - 1
	for last > 0 && r.cols[last].kind != colFigure {
		last--
	}
	for i, c := range r.cols {
		if c.kind != colFigure {
			continue
		}
		s := results.Sample{Test: r.test, Metric: c.metric, Value: values[i], Unit: c.unit, Labels: labels}
		if i < last {
			s.Labels = maps.Clone(labels) // each sample owns its labels
		}
		if c.window != "" {
			s.Labels[labelWindowSize] = c.window
		}
		p.samples = append(p.samples, s)
	}
	if len(p.samples) > results.MaxRunSamples {
		return results.ErrTooManySamples
	}
	r.rows++
	return nil
}

// errValidation is a row whose Validation column says Fail: the figure
// was measured on wrong data, so it is not a result.
var errValidation = errors.New("validation failed")

// field reads field f of column c: a figure is returned, a label is set
// in labels (the size column comes first, so errors can name the size).
func field(c column, f string, labels map[string]string) (float64, error) {
	switch c.kind {
	case colFigure:
		return figure(f)
	case colValidation:
		switch f {
		case "Pass":
			labels[labelValidation] = "pass"
			return 0, nil
		case "Fail":
			if size, ok := labels[results.LabelMsgSize]; ok {
				return 0, fmt.Errorf("%w at message size %s", errValidation, size)
			}
			return 0, errValidation
		}
		return 0, fmt.Errorf("validation status %q is neither Pass nor Fail", f)
	}
	n, err := count(f)
	if err != nil {
		return 0, err
	}
	labels[countLabel(c.kind)] = strconv.FormatUint(n, 10)
	return 0, nil
}

// countLabel is the label of a column that holds a count.
func countLabel(k colKind) string {
	switch k {
	case colSize:
		return results.LabelMsgSize
	case colIterations:
		return labelIterations
	}
	return labelTransmitSize
}

// figure parses a figure as OMB prints it ("%.2f"): a finite,
// non-negative decimal number.
func figure(f string) (float64, error) {
	if strings.HasPrefix(f, "-") && digits.All(strings.ReplaceAll(f[1:], ".", "")) {
		return 0, fmt.Errorf("negative figure %q", f)
	}
	if !digits.PlainDecimal(f) {
		return 0, fmt.Errorf("%q is not a finite non-negative number", f)
	}
	v, err := strconv.ParseFloat(f, 64)
	if err != nil {
		return 0, fmt.Errorf("figure %q: %w", f, err)
	}
	return v, nil
}

// count parses a size or a count: a non-negative decimal integer.
func count(f string) (uint64, error) {
	if !digits.All(f) {
		return 0, fmt.Errorf("%q is not a non-negative integer", f)
	}
	n, err := strconv.ParseUint(f, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", f, err)
	}
	return n, nil
}
