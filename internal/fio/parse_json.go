package fio

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// JobError reports a fio job whose "error" field is non-zero: fio stopped it
// with that errno, so its figures are not results.
type JobError struct {
	Job   string // the job's name
	Errno int    // fio's error field, an errno value
}

func (e *JobError) Error() string {
	msg := syscall.Errno(e.Errno).Error()
	if e.Errno <= 0 || strings.HasPrefix(msg, "errno ") {
		return fmt.Sprintf("fio job %q: error %d", e.Job, e.Errno)
	}
	return fmt.Sprintf("fio job %q: error %d (%s)", e.Job, e.Errno, msg)
}

// fioOutput is the part of fio's JSON (or json+) output the parser reads.
type fioOutput struct {
	Version   string `json:"fio version"`
	Timestamp int64  `json:"timestamp"`
	// TimestampMs is when fio wrote the report, Unix milliseconds.
	TimestampMs int64      `json:"timestamp_ms"`
	Global      fioOptions `json:"global options"`
	Jobs        []fioJob   `json:"jobs"`
}

type fioJob struct {
	Name    string     `json:"jobname"`
	GroupID int        `json:"groupid"`
	Error   int        `json:"error"`
	Options fioOptions `json:"job options"`
	// Runtime is the milliseconds the job measured (after its ramp).
	Runtime int64      `json:"job_runtime"`
	Read    *ddirStats `json:"read"`
	Write   *ddirStats `json:"write"`
	Trim    *ddirStats `json:"trim"`
}

// fioOptions are the options that become labels, as fio echoes them.
type fioOptions struct {
	RW        string `json:"rw"`
	ReadWrite string `json:"readwrite"`
	BS        string `json:"bs"`
	BlockSize string `json:"blocksize"`
	IODepth   string `json:"iodepth"`
	NumJobs   string `json:"numjobs"`
	IOEngine  string `json:"ioengine"`
	Direct    string `json:"direct"`
	RampTime  string `json:"ramp_time"`
}

// optionLabels are the labels read from fioOptions, in the order of values.
var optionLabels = [...]string{results.LabelRW, results.LabelBlockSize, results.LabelIODepth,
	results.LabelNumJobs, "ioengine", "direct"}

func (o *fioOptions) values() [len(optionLabels)]string {
	return [...]string{cmp.Or(o.RW, o.ReadWrite), cmp.Or(o.BS, o.BlockSize), o.IODepth,
		o.NumJobs, o.IOEngine, o.Direct}
}

// ddirStats is one direction of a job. fio 2.x reports latencies in usec under
// clat/lat and bandwidth in KiB/s only; fio 3.x in ns under clat_ns/lat_ns and
// adds bw_bytes.
type ddirStats struct {
	IOBytes  float64   `json:"io_bytes"`
	BWBytes  *float64  `json:"bw_bytes"`
	BWKiB    float64   `json:"bw"`
	IOPS     float64   `json:"iops"`
	Runtime  float64   `json:"runtime"` // ms
	TotalIOs float64   `json:"total_ios"`
	ClatNS   *latStats `json:"clat_ns"`
	LatNS    *latStats `json:"lat_ns"`
	ClatUS   *latStats `json:"clat"`
	LatUS    *latStats `json:"lat"`
}

type latStats struct {
	Mean       float64          `json:"mean"`
	Max        float64          `json:"max"`
	N          *float64         `json:"N"`
	Percentile *clatPercentiles `json:"percentile"`
}

// clatPercentiles are the percentiles reported, under the keys fio prints
// with "%f" in every version.
type clatPercentiles struct {
	P50  *float64 `json:"50.000000"`
	P90  *float64 `json:"90.000000"`
	P99  *float64 `json:"99.000000"`
	P999 *float64 `json:"99.900000"`
}

// directions are fio's data directions, in the order samples are emitted.
var directions = []string{"read", "write", "trim"}

// ParseJSON turns the output of fio --output-format=json or json+ (fio 2.x and
// 3.x) into samples, one test per job name. For each direction that did I/O:
// <dir>_iops, <dir>_bw (MiB/s), <dir>_clat_mean, _clat_p50, _p90, _p99, _p99.9
// and <dir>_lat_mean (us), <dir>_runtime (ms); latencies fio did not measure
// (gtod_reduce) are left out. Text around the JSON is ignored; of several JSON
// objects (--status-interval) the last is read. Entries sharing a name and
// group (numjobs without group_reporting) are combined: IOPS and bandwidth
// summed, means weighted by I/O count, no percentiles, label entries=N. A job
// with a non-zero error yields a *JobError, returned with the other jobs'
// samples.
func ParseJSON(data []byte) ([]results.Sample, error) {
	return ParseJSONJobs(data, nil)
}

// ParseJSONJobs is ParseJSON keeping only the jobs named in jobs (every job
// when nil): the entries of other jobs are skipped, not decoded, so a report
// of many jobs nobody asked for costs no memory.
func ParseJSONJobs(data []byte, jobs []string) ([]results.Sample, error) {
	out, err := decodeOutput(data, jobs)
	if err != nil {
		return nil, err
	}
	var ts time.Time
	if out.Timestamp > 0 {
		ts = time.Unix(out.Timestamp, 0).UTC()
	}
	var samples []results.Sample
	var jobErrs []error
	for _, g := range groupJobs(out.Jobs) {
		if err := g.err(); err != nil {
			jobErrs = append(jobErrs, err)
			continue
		}
		if samples = append(samples, g.samples(out, ts)...); len(samples) > results.MaxRunSamples {
			return nil, results.ErrTooManySamples
		}
	}
	switch {
	case len(jobErrs) == 1:
		return samples, jobErrs[0]
	case len(jobErrs) > 1:
		return samples, errors.Join(jobErrs...)
	case len(samples) == 0:
		return nil, results.ErrNoSamples
	}
	return samples, nil
}

// decodeOutput finds fio's JSON object in data and decodes it, keeping the
// entries of the named jobs (all when nil).
func decodeOutput(data []byte, jobs []string) (*fioOutput, error) {
	start, ok := findDocument(data)
	if !ok {
		start, ok = reorderedDocument(data)
	}
	if !ok {
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, results.ErrNoSamples
		}
		return nil, fmt.Errorf("no fio JSON object found (the output starts with %q)", results.FirstLine(data))
	}
	end := results.JSONObjectLen(data[start:])
	if end < 0 {
		return nil, fmt.Errorf("fio JSON output is truncated at byte %d", len(data))
	}
	var out fioOutput
	var into any = &out
	wanted := wantedOutput{Jobs: jobList{want: jobs}}
	if jobs != nil {
		into = &wanted
	}
	if err := json.Unmarshal(data[start:start+end], into); err != nil {
		var syntaxErr *json.SyntaxError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntaxErr):
			return nil, fmt.Errorf("parsing fio JSON at byte %d: %w", start+int(syntaxErr.Offset), err)
		case errors.As(err, &typeErr):
			return nil, fmt.Errorf("parsing fio JSON at byte %d: %w", start+int(typeErr.Offset), err)
		}
		return nil, fmt.Errorf("parsing fio JSON: %w", err)
	}
	if jobs != nil {
		out = wanted.fioOutput
		out.Jobs = wanted.Jobs.jobs
	}
	if len(out.Jobs) > maxEntries {
		return nil, fmt.Errorf("%w: fio's report has over %d job entries", results.ErrOutputTooLarge, maxEntries)
	}
	return &out, nil
}

// findDocument returns the offset of the last '{' in data that opens an
// object whose first key is "fio version", as every fio JSON output does.
func findDocument(data []byte) (int, bool) {
	start, found := 0, false
	for from := 0; ; {
		s, ok := results.FindJSONObject(data, from, "fio version")
		if !ok {
			return start, found
		}
		start, found, from = s, true, s+1
	}
}

// reorderedDocument accepts fio's JSON with its keys in another order (after
// `jq -S`, say): an output that is one object holding "fio version" at its
// top level.
func reorderedDocument(data []byte) (int, bool) {
	start := bytes.IndexByte(data, '{')
	if start < 0 || len(bytes.TrimSpace(data[:start])) > 0 {
		return 0, false
	}
	var top map[string]json.RawMessage
	if end := results.JSONObjectLen(data[start:]); end < 0 || json.Unmarshal(data[start:start+end], &top) != nil {
		return 0, false
	}
	_, ok := top["fio version"]
	return start, ok
}

// jobGroup is the entries of one job: several when numjobs > 1 without
// group_reporting, all with the same name and group.
type jobGroup struct {
	name       string
	groupID    int
	entries    []*fioJob
	sharedName bool // another group has a job of the same name
}

func groupJobs(jobs []fioJob) []*jobGroup {
	type key struct {
		name  string
		group int
	}
	byKey := map[key]*jobGroup{}
	byName := map[string][]*jobGroup{}
	var groups []*jobGroup
	for i := range jobs {
		j := &jobs[i]
		k := key{j.Name, j.GroupID}
		g := byKey[k]
		if g == nil {
			g = &jobGroup{name: j.Name, groupID: j.GroupID}
			byKey[k] = g
			byName[j.Name] = append(byName[j.Name], g)
			groups = append(groups, g)
		}
		g.entries = append(g.entries, j)
	}
	for _, same := range byName {
		for _, g := range same {
			g.sharedName = len(same) > 1
		}
	}
	return groups
}

func (g *jobGroup) err() error {
	for _, j := range g.entries {
		if j.Error != 0 {
			return &JobError{Job: g.name, Errno: j.Error}
		}
	}
	return nil
}

func (g *jobGroup) labels(out *fioOutput) map[string]string {
	labels := map[string]string{
		results.LabelTool:        "fio",
		results.LabelToolVersion: strings.TrimPrefix(out.Version, "fio-"),
	}
	job, global := g.entries[0].Options.values(), out.Global.values()
	for i, label := range optionLabels {
		// A job's own options override the global section's.
		if v := cmp.Or(job[i], global[i]); v != "" {
			labels[label] = v
		}
	}
	if len(g.entries) > 1 {
		labels["entries"] = strconv.Itoa(len(g.entries))
	}
	if g.sharedName {
		labels["group"] = strconv.Itoa(g.groupID)
	}
	return labels
}

func (g *jobGroup) samples(out *fioOutput, ts time.Time) []results.Sample {
	labels := g.labels(out)
	var samples []results.Sample
	add := func(metric, unit string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		samples = append(samples, results.Sample{
			Test: g.name, Metric: metric, Value: v, Unit: unit,
			Labels: maps.Clone(labels), Timestamp: ts,
		})
	}
	for _, d := range directions {
		stats := make([]*ddirStats, 0, len(g.entries))
		for _, j := range g.entries {
			stats = append(stats, j.ddir(d))
		}
		directionSamples(d, stats, add)
	}
	return samples
}

func (j *fioJob) ddir(d string) *ddirStats {
	switch d {
	case "read":
		return j.Read
	case "write":
		return j.Write
	}
	return j.Trim
}

// directionSamples emits the samples of direction d, combining the entries'
// stats; nothing when no entry did I/O in that direction.
func directionSamples(d string, stats []*ddirStats, add func(metric, unit string, v float64)) {
	var active []*ddirStats
	var iops, bw, runtime float64
	for _, s := range stats {
		if s == nil || (s.TotalIOs <= 0 && s.IOBytes <= 0) {
			continue
		}
		active = append(active, s)
		iops += s.IOPS
		bw += s.bandwidth()
		runtime = max(runtime, s.Runtime)
	}
	if len(active) == 0 {
		return
	}
	add(d+"_iops", "IOPS", iops)
	add(d+"_bw", "MiB/s", bw)
	if mean, ok := meanLatency(active, (*ddirStats).clat); ok {
		add(d+"_clat_mean", "us", mean)
	}
	// Percentiles of several jobs cannot be combined from theirs.
	if len(stats) == 1 {
		if clat, scale := active[0].clat(); clat.measured() && clat.Percentile != nil {
			p := clat.Percentile
			for _, pv := range []struct {
				suffix string
				v      *float64
			}{{"p50", p.P50}, {"p90", p.P90}, {"p99", p.P99}, {"p99.9", p.P999}} {
				if pv.v != nil {
					add(d+"_clat_"+pv.suffix, "us", *pv.v/scale)
				}
			}
		}
	}
	if mean, ok := meanLatency(active, (*ddirStats).lat); ok {
		add(d+"_lat_mean", "us", mean)
	}
	// The entries ran side by side: the direction took as long as the longest.
	add(d+"_runtime", "ms", runtime)
}

// bandwidth is in MiB/s.
func (s *ddirStats) bandwidth() float64 {
	if s.BWBytes != nil {
		return *s.BWBytes / (1 << 20)
	}
	return s.BWKiB / 1024
}

// clat and lat return the latency block and the divisor that turns it into usec.
func (s *ddirStats) clat() (*latStats, float64) {
	if s.ClatNS != nil {
		return s.ClatNS, 1000
	}
	return s.ClatUS, 1
}

func (s *ddirStats) lat() (*latStats, float64) {
	if s.LatNS != nil {
		return s.LatNS, 1000
	}
	return s.LatUS, 1
}

// meanLatency is the mean over the active entries weighted by their I/O
// count, in usec; false when any entry did not measure it.
func meanLatency(active []*ddirStats, pick func(*ddirStats) (*latStats, float64)) (float64, bool) {
	if len(active) == 1 {
		l, scale := pick(active[0])
		if !l.measured() {
			return 0, false
		}
		return l.Mean / scale, true
	}
	var sum, weight float64
	for _, s := range active {
		l, scale := pick(s)
		if !l.measured() {
			return 0, false
		}
		sum += l.Mean / scale * s.TotalIOs
		weight += s.TotalIOs
	}
	if weight <= 0 {
		return 0, false
	}
	return sum / weight, true
}

// measured tells a latency fio recorded from the zeros it prints when it did
// not (gtod_reduce, disable_lat): fio 3.x counts samples in N; older versions
// leave only zeros.
func (l *latStats) measured() bool {
	if l == nil {
		return false
	}
	if l.N != nil {
		return *l.N > 0
	}
	return l.Mean > 0 || l.Max > 0
}
