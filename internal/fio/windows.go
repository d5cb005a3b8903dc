package fio

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// JobWindow is when one job of a report ran: from the start of its ramp to
// the end of what it measured.
type JobWindow struct {
	Job        string
	Start, End time.Time
}

// JobWindows places the jobs of a report in time, in the order they ran
// (benchwright's job files run them one after another: stonewall). fio
// 3.33's JSON has no job start times, only when the report was written
// (timestamp_ms) and what each job measured (job_runtime, after ramp_time):
// the windows are placed back from the report's time, each job's measured
// time and ramp before the next. Time fio spent between jobs (laying out a
// new file) is not known, and puts the earlier windows that much early.
// Entries of one job (numjobs) count once, with their longest runtime. ok
// is false when the report lacks the times.
func JobWindows(data []byte, jobs []string) ([]JobWindow, bool) {
	out, err := decodeOutput(data, jobs)
	if err != nil || out.TimestampMs <= 0 {
		return nil, false
	}
	var names []string
	measured, ramp := map[string]time.Duration{}, map[string]time.Duration{}
	for _, j := range out.Jobs {
		if !slices.Contains(names, j.Name) {
			names = append(names, j.Name)
		}
		measured[j.Name] = max(measured[j.Name], time.Duration(max(j.Runtime, 0))*time.Millisecond)
		ramp[j.Name] = max(ramp[j.Name], fioDuration(j.Options.RampTime), fioDuration(out.Global.RampTime))
	}
	end := time.UnixMilli(out.TimestampMs)
	windows := make([]JobWindow, len(names))
	for i := len(names) - 1; i >= 0; i-- {
		n := names[i]
		start := end.Add(-measured[n] - ramp[n])
		windows[i] = JobWindow{Job: n, Start: start, End: end}
		end = start
	}
	return windows, true
}

// fioDuration reads a fio time option as fio echoes it: a number, in
// seconds unless it has a unit (us, ms, s, m, h). Anything else is zero.
func fioDuration(s string) time.Duration {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n >= 0 && n < 1e7 {
		return time.Duration(n * float64(time.Second))
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d
	}
	return 0
}
