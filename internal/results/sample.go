// Package results holds the one sample schema every tool's output is turned into,
// its NDJSON and CSV encodings, and statistics over repetitions.
package results

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Sample is one figure a tool printed (or an exact conversion of it, with the
// unit saying which), as in PerfKitBenchmarker's samples: loadable into BigQuery.
type Sample struct {
	RunUID     string            `json:"run_uid,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	Namespace  string            `json:"namespace,omitempty"`
	Benchmark  string            `json:"benchmark,omitempty"`
	Test       string            `json:"test"`
	Metric     string            `json:"metric"`
	Value      float64           `json:"value"`
	Unit       string            `json:"unit"`
	Repetition int               `json:"repetition"`
	Timestamp  time.Time         `json:"timestamp,omitzero"`
	Labels     map[string]string `json:"labels,omitempty"`
}

// Label keys used across tools.
const (
	LabelMachineType = "machine_type"
	LabelPool        = "pool"
	LabelTuning      = "tuning"
	LabelMPI         = "mpi_implementation"
	LabelMsgSize     = "msg_size"
	LabelRW          = "rw"
	LabelBlockSize   = "block_size"
	LabelIODepth     = "io_depth"
	LabelNumJobs     = "num_jobs"
	LabelProcesses   = "processes"
	LabelNode        = "node"
	// LabelNodes is how many nodes ran a distributed benchmark at once (set
	// from 2 on): the run's figure is theirs together.
	LabelNodes       = "nodes"
	LabelCampaign    = "campaign"
	LabelTool        = "tool"
	LabelToolVersion = "tool_version"
	LabelDirection   = "direction"
	LabelWarmup      = "warmup"
	LabelAttempt     = "attempt"
)

// AxisLabels are the sample labels of a benchmark's axis labels
// (benchv1.AxisLabelPrefix): benchwright.io/x-NAME becomes x-NAME.
func AxisLabels(objectLabels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range objectLabels {
		if name, ok := strings.CutPrefix(k, benchv1.AxisLabelPrefix); ok && name != "" {
			out[LabelAxisPrefix+name] = v
		}
	}
	return out
}

// LabelAxisPrefix starts the sample labels AxisLabels makes.
const LabelAxisPrefix = "x-"

// WriteNDJSON writes one JSON object per line.
func WriteNDJSON(w io.Writer, samples []Sample) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range samples {
		if err := enc.Encode(&samples[i]); err != nil {
			return fmt.Errorf("encoding sample %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// ReadNDJSON reads samples written by WriteNDJSON; blank lines are skipped and a
// bad line is an error that names its line number.
func ReadNDJSON(r io.Reader) ([]Sample, error) {
	var out []Sample
	_, err := DecodeNDJSON(context.Background(), r, func(s Sample) { out = append(out, s) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DecodeNDJSON hands each sample of r to add as it is read, so that large
// inputs need not be held whole, and returns how many there were. It checks
// ctx every few thousand lines.
func DecodeNDJSON(ctx context.Context, r io.Reader, add func(Sample)) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line, n := 0, 0
	for sc.Scan() {
		line++
		if line%4096 == 0 && ctx.Err() != nil {
			return n, ctx.Err()
		}
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var s Sample
		if err := json.Unmarshal(b, &s); err != nil {
			return n, fmt.Errorf("line %d: %w", line, err)
		}
		if s.Metric == "" || s.Test == "" {
			return n, fmt.Errorf("line %d: not a sample (no test or metric)", line)
		}
		add(s)
		n++
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("reading samples: %w", err)
	}
	return n, nil
}

// csvHeader is the fixed part of the CSV header; label columns follow, sorted.
var csvHeader = []string{"run_uid", "kind", "namespace", "benchmark", "test", "metric", "value", "unit", "repetition", "timestamp"}

// WriteCSV writes samples as CSV with one column per label key (sorted), so a
// spreadsheet can pivot on them.
func WriteCSV(w io.Writer, samples []Sample) error {
	keys := map[string]bool{}
	for _, s := range samples {
		for k := range s.Labels {
			keys[k] = true
		}
	}
	cw, err := NewCSVWriter(w, keys)
	if err != nil {
		return err
	}
	for i := range samples {
		if err := cw.Write(&samples[i]); err != nil {
			return err
		}
	}
	return cw.Flush()
}

// CSVWriter writes samples as CSV one at a time, with the label columns
// known beforehand.
type CSVWriter struct {
	cw        *csv.Writer
	labelKeys []string
}

// NewCSVWriter writes the header: the fixed columns, then labelKeys sorted.
func NewCSVWriter(w io.Writer, labelKeys map[string]bool) (*CSVWriter, error) {
	keys := make([]string, 0, len(labelKeys))
	for k := range labelKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c := &CSVWriter{cw: csv.NewWriter(w), labelKeys: keys}
	return c, c.cw.Write(append(append([]string{}, csvHeader...), keys...))
}

// Write writes one sample's row.
func (c *CSVWriter) Write(s *Sample) error {
	ts := ""
	if !s.Timestamp.IsZero() {
		ts = s.Timestamp.UTC().Format(time.RFC3339Nano)
	}
	row := []string{s.RunUID, s.Kind, s.Namespace, s.Benchmark, s.Test, s.Metric,
		strconv.FormatFloat(s.Value, 'g', -1, 64), s.Unit, strconv.Itoa(s.Repetition), ts}
	for _, k := range c.labelKeys {
		row = append(row, s.Labels[k])
	}
	return c.cw.Write(row)
}

// Flush writes what is buffered.
func (c *CSVWriter) Flush() error {
	c.cw.Flush()
	return c.cw.Error()
}

// ErrNoSamples is returned by parsers whose input holds no figure at all.
var ErrNoSamples = errors.New("no results found in the output")

// MaxRunSamples is the most samples the manager keeps of one run, every
// repetition, node and pair together: 100 000, ten repetitions of the largest
// legitimate outputs (IMB-MPI1's every test and size over several process
// counts, about 8 000; fabtests -S all on 16 pairs x 4 tests, 8 800; fio's 72
// jobs with percentiles on 16 nodes, 30 000 at most). A parser stops at it
// and a run over it fails with OutputTooLarge, so that no output can exhaust
// the manager's memory.
const MaxRunSamples = 100_000

// ErrOutputTooLarge is wrapped by the errors of outputs larger than the
// manager keeps.
var ErrOutputTooLarge = errors.New("more than the manager keeps of a run")

// ErrTooManySamples is an output or a run of more than MaxRunSamples samples.
var ErrTooManySamples = fmt.Errorf("%w: over %d samples (MaxRunSamples)", ErrOutputTooLarge, MaxRunSamples)
