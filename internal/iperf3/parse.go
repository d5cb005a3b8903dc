// Package iperf3 reads iperf3's JSON output (iperf3 -J) into benchwright's
// samples.
package iperf3

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// Metrics of a run: the receiver's and the sender's throughput, TCP's
// retransmits, UDP's jitter and loss, and the CPU use of both ends.
const (
	MetricBandwidth     = "bandwidth"      // received, Gbit/s: iperf3's "receiver" line
	MetricBandwidthSent = "bandwidth_sent" // Gbit/s: its "sender" line
	MetricRetransmits   = "retransmits"    // TCP, segments
	MetricJitter        = "jitter"         // UDP, ms
	MetricLostPercent   = "lost_percent"   // UDP, %
	MetricCPUHost       = "cpu_host"       // % of the client's CPUs
	MetricCPURemote     = "cpu_remote"     // % of the server's CPUs
)

// Labels of iperf3 samples besides tool, tool_version and block_size.
const (
	LabelProtocol = "protocol"
	LabelStreams  = "streams"
	LabelReverse  = "reverse"
)

// doc is the part of iperf3's JSON the parser reads.
type doc struct {
	Start *struct {
		Version   string `json:"version"`
		TestStart *struct {
			Protocol   string `json:"protocol"`
			NumStreams int64  `json:"num_streams"`
			BlkSize    int64  `json:"blksize"`
			Reverse    int64  `json:"reverse"`
		} `json:"test_start"`
	} `json:"start"`
	End *struct {
		SumSent     *sum `json:"sum_sent"`
		SumReceived *sum `json:"sum_received"`
		CPU         *struct {
			HostTotal   *float64 `json:"host_total"`
			RemoteTotal *float64 `json:"remote_total"`
		} `json:"cpu_utilization_percent"`
	} `json:"end"`
	Error string `json:"error"`
}

type sum struct {
	BitsPerSecond *float64 `json:"bits_per_second"`
	Retransmits   *float64 `json:"retransmits"`
	JitterMS      *float64 `json:"jitter_ms"`
	LostPercent   *float64 `json:"lost_percent"`
}

// Parse reads one or more iperf3 JSON documents (-J; several runs one after
// the other are repetitions 0, 1, ...) into samples of test: bandwidth (the
// receiver's, Gbit/s) and bandwidth_sent, retransmits (TCP), jitter (ms) and
// lost_percent (UDP), cpu_host and cpu_remote (%), labelled tool=iperf3,
// tool_version, protocol (tcp or udp), streams, reverse (true/false) and
// block_size in bytes.
//
// Errors: empty input gives results.ErrNoSamples; iperf3's own "error" is
// quoted; text that is not iperf3 JSON says to run it with -J; a document cut
// off says the run did not finish; a figure that is negative or not finite is
// an error.
func Parse(data []byte, test string) ([]results.Sample, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, results.ErrNoSamples
	}
	if test == "" {
		test = "iperf3"
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []results.Sample
	for rep := 0; ; rep++ {
		var d doc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		var syntax *json.SyntaxError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("iperf3 JSON document %d is cut off: the run did not finish", rep+1)
		case errors.As(err, &syntax) && rep == 0 && syntax.Offset <= 1:
			return nil, fmt.Errorf("not iperf3 JSON output (run iperf3 with -J): %q", firstLine(data))
		case err != nil:
			return nil, fmt.Errorf("iperf3 JSON document %d: %w", rep+1, err)
		}
		samples, err := d.samples(test, rep)
		if err != nil {
			return nil, fmt.Errorf("iperf3 JSON document %d: %w", rep+1, err)
		}
		if out = append(out, samples...); len(out) > results.MaxRunSamples {
			return nil, results.ErrTooManySamples
		}
	}
	return out, nil
}

// ToolError is an error iperf3 itself reported in its JSON: the run failed,
// the output is not at fault.
type ToolError struct{ Message string }

func (e *ToolError) Error() string { return fmt.Sprintf("iperf3 reported an error: %q", e.Message) }

func (d *doc) samples(test string, rep int) ([]results.Sample, error) {
	if d.Error != "" {
		return nil, &ToolError{Message: d.Error}
	}
	if d.Start == nil || d.End == nil || d.Start.TestStart == nil {
		return nil, errors.New(`not iperf3 -J output: no "start.test_start" or no "end"`)
	}
	ts := d.Start.TestStart
	labels := map[string]string{
		results.LabelTool:      "iperf3",
		LabelProtocol:          strings.ToLower(ts.Protocol),
		LabelStreams:           strconv.FormatInt(ts.NumStreams, 10),
		LabelReverse:           strconv.FormatBool(ts.Reverse != 0),
		results.LabelBlockSize: strconv.FormatInt(ts.BlkSize, 10),
	}
	if v, ok := strings.CutPrefix(d.Start.Version, "iperf "); ok {
		labels[results.LabelToolVersion] = v
	}
	type figure struct {
		metric, unit string
		value        *float64
		divisor      float64
	}
	var figs []figure
	if s := d.End.SumReceived; s != nil {
		figs = append(figs, figure{MetricBandwidth, "Gbit/s", s.BitsPerSecond, 1e9},
			figure{MetricJitter, "ms", s.JitterMS, 1}, figure{MetricLostPercent, "%", s.LostPercent, 1})
	}
	if s := d.End.SumSent; s != nil {
		figs = append(figs, figure{MetricBandwidthSent, "Gbit/s", s.BitsPerSecond, 1e9},
			figure{MetricRetransmits, "segments", s.Retransmits, 1})
	}
	if c := d.End.CPU; c != nil {
		figs = append(figs, figure{MetricCPUHost, "%", c.HostTotal, 1}, figure{MetricCPURemote, "%", c.RemoteTotal, 1})
	}
	var out []results.Sample
	for _, f := range figs {
		if f.value == nil {
			continue
		}
		v := *f.value / f.divisor
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("%s is %v", f.metric, *f.value)
		}
		out = append(out, results.Sample{Test: test, Metric: f.metric, Unit: f.unit, Value: v, Repetition: rep, Labels: maps.Clone(labels)})
	}
	if len(out) == 0 || d.End.SumReceived == nil || d.End.SumReceived.BitsPerSecond == nil {
		return nil, fmt.Errorf("%w: iperf3's end holds no received throughput (end.sum_received)", results.ErrNoSamples)
	}
	return out, nil
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(string(b[:min(len(b), 200)]), "\n")
	return line
}
