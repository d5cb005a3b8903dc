package compare

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/sampler"
)

// MaxRecordsPerRun is how many of a run's series a report draws: the first
// in repetition, then pod order.
const MaxRecordsPerRun = 6

// maxMonitorNotes bounds what a run's Monitor says it skipped.
const maxMonitorNotes = 8

// Monitor is what a report draws of a run's series.
type Monitor struct {
	// Records are the series drawn, at most MaxRecordsPerRun.
	Records []MonitorRecord
	// Left counts the record files of the run's inputs not drawn past
	// MaxRecordsPerRun (for a network pair: at most that many are its).
	Left int
	// Notes say what was skipped and why: a file too large, not a record.
	Notes []string
}

// note adds a note, within maxMonitorNotes.
func (m *Monitor) note(format string, args ...any) {
	switch {
	case len(m.Notes) < maxMonitorNotes:
		m.Notes = append(m.Notes, Ellipsis(fmt.Sprintf(format, args...), 300))
	case len(m.Notes) == maxMonitorNotes:
		m.Notes = append(m.Notes, "more series skipped")
	}
}

// ReadMonitors reads the sampler's series of runs from src, when it holds
// them (see MonitorSource), into each run's Monitor: records read bounded
// and checked as hostile input (see readRecord), a network pair's with its
// own phases. What cannot be read is a note of the run, never an error:
// the error is only ctx's.
func ReadMonitors(ctx context.Context, src source.Source, runs []Run) error {
	ms, ok := src.(source.MonitorSource)
	if !ok {
		return nil
	}
	inputs, byInput := runInputs(runs)
	done := map[string]bool{}
	err := ms.MonitorFiles(ctx, inputs, func(input string, files []source.MonitorFile, err error) {
		idx := byInput[input]
		if done[input] || len(idx) == 0 {
			return
		}
		done[input] = true
		if err != nil {
			for _, i := range idx {
				runs[i].Monitor.note("the series could not be listed: %v", err)
			}
			return
		}
		readInput(ctx, runs, idx, files)
	})
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		for i := range runs {
			runs[i].Monitor.note("the series could not be listed: %v", err)
		}
	}
	return nil
}

// readInput reads an input's record files into its runs (idx), in
// repetition then pod order, while one of them has room for more.
func readInput(ctx context.Context, runs []Run, idx []int, files []source.MonitorFile) {
	type named struct {
		source.MonitorFile
		rep int
	}
	var list []named
	for _, f := range files {
		if rep, ok := monitorName(f.Name); ok {
			list = append(list, named{f, rep})
		}
	}
	slices.SortFunc(list, func(a, b named) int { return cmp.Or(cmp.Compare(a.rep, b.rep), strings.Compare(a.Name, b.Name)) })
	full := func(i int) bool { return len(runs[i].Monitor.Records) >= MaxRecordsPerRun }
	for _, f := range list {
		if ctx.Err() != nil {
			return
		}
		if !slices.ContainsFunc(idx, func(i int) bool { return !full(i) }) {
			for _, i := range idx {
				runs[i].Monitor.Left++
			}
			continue
		}
		rec, err := readRecord(ctx, f.MonitorFile)
		if err != nil {
			for _, i := range idx {
				runs[i].Monitor.note("%s skipped: %v", f.Name, err)
			}
			continue
		}
		for _, i := range idx {
			keep, ok := phasesOf(runs[i], rec)
			switch {
			case !ok:
			case full(i):
				runs[i].Monitor.Left++
			default:
				runs[i].Monitor.Records = append(runs[i].Monitor.Records, newMonitorRecord(f.rep, rec, keep))
			}
		}
	}
}

// phasesOf are the phases of rec that are run's, and whether rec is the
// run's at all: a network pair's run has the phases of its pair (and those
// of none), and the records that have one.
func phasesOf(run Run, rec sampler.Record) ([]sampler.Phase, bool) {
	if run.Pair == "" {
		return rec.Phases, true
	}
	var out []sampler.Phase
	mine := false
	for _, ph := range rec.Phases {
		switch pair, ok := ph.Labels[netbench.LabelPair]; {
		case !ok:
			out = append(out, ph)
		case pair == run.Pair:
			out, mine = append(out, ph), true
		}
	}
	return out, mine
}

// monitorName reads the repetition of monitor/<repetition>/<pod>.json; ok
// is false for any other name.
func monitorName(name string) (rep int, ok bool) {
	parts := strings.Split(name, "/")
	if len(parts) != 3 || parts[0] != sampler.MonitorDir || !strings.HasSuffix(parts[2], ".json") {
		return 0, false
	}
	rep, err := strconv.Atoi(parts[1])
	if err != nil || rep < 0 || parts[2] == ".json" {
		return 0, false
	}
	return rep, true
}

// MaxRecordBytes bounds a record file a report reads: twice what the
// sampler's log may hold (sampler.DefaultBudget), as JSON.
const MaxRecordBytes = 16 << 20

// errTooLarge is a record file over MaxRecordBytes.
var errTooLarge = fmt.Errorf("larger than %d MiB", MaxRecordBytes>>20)

// readRecord reads a record file, at most MaxRecordBytes of it, and checks
// it by the sampler's own rules (sampler.ReadRecord).
func readRecord(ctx context.Context, f source.MonitorFile) (sampler.Record, error) {
	rc, err := f.Open(ctx)
	if err != nil {
		return sampler.Record{}, err
	}
	defer func() { _ = rc.Close() }()
	data, err := io.ReadAll(io.LimitReader(rc, MaxRecordBytes+1))
	switch {
	case err != nil:
		return sampler.Record{}, err
	case len(data) > MaxRecordBytes:
		return sampler.Record{}, errTooLarge
	}
	rec, err := sampler.ReadRecord(data)
	if err != nil {
		return sampler.Record{}, errors.New(Ellipsis(err.Error(), 200))
	}
	return rec, nil
}

// runInputs are the inputs runs' samples came from, each once in the order
// first met, and the runs each input holds (by index).
func runInputs(runs []Run) (inputs []string, byInput map[string][]int) {
	byInput = map[string][]int{}
	for i, r := range runs {
		for _, in := range r.Origins {
			if _, seen := byInput[in]; !seen {
				inputs = append(inputs, in)
			}
			byInput[in] = append(byInput[in], i)
		}
	}
	return inputs, byInput
}
