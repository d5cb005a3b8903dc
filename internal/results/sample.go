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
	"time"
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
	LabelNode        = "node"
	LabelCampaign    = "campaign"
	LabelTool        = "tool"
	LabelToolVersion = "tool_version"
	LabelDirection   = "direction"
	LabelWarmup      = "warmup"
	LabelAttempt     = "attempt"
)

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
	labelKeys := make([]string, 0, len(keys))
	for k := range keys {
		labelKeys = append(labelKeys, k)
	}
	sort.Strings(labelKeys)
	cw := csv.NewWriter(w)
	header := append(append([]string{}, csvHeader...), labelKeys...)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, s := range samples {
		ts := ""
		if !s.Timestamp.IsZero() {
			ts = s.Timestamp.UTC().Format(time.RFC3339Nano)
		}
		row := []string{s.RunUID, s.Kind, s.Namespace, s.Benchmark, s.Test, s.Metric,
			strconv.FormatFloat(s.Value, 'g', -1, 64), s.Unit, strconv.Itoa(s.Repetition), ts}
		for _, k := range labelKeys {
			row = append(row, s.Labels[k])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ErrNoSamples is returned by parsers whose input holds no figure at all.
var ErrNoSamples = errors.New("no results found in the output")
