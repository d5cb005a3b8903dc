package artifactserver

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
)

// run is one run of the store as the pages show it.
type run struct {
	artifacts.Location
	// Summary is summary.json, nil when it is missing or unreadable.
	Summary *results.RunSummary
	// Files are the run's files of the layout: the top ones in the layout's
	// order, then each repetition's monitor/ records and raw logs.
	Files []string
}

// groupRuns sorts keys of the layout into runs; other keys are left out.
func groupRuns(keys []string) []*run {
	byLoc := map[artifacts.Location]*run{}
	var runs []*run
	for _, key := range keys {
		loc, _, err := parseKey(key)
		if err != nil {
			continue
		}
		r := byLoc[loc]
		if r == nil {
			r = &run{Location: loc}
			byLoc[loc] = r
			runs = append(runs, r)
		}
		r.Files = append(r.Files, fileName(key))
	}
	for _, r := range runs {
		sort.SliceStable(r.Files, func(i, j int) bool { return fileLess(r.Files[i], r.Files[j]) })
	}
	return runs
}

// fileName is a key's path inside its run, e.g. raw/0/fio-0.log.
func fileName(key string) string {
	return strings.SplitN(key, "/", 5)[4]
}

// topFiles orders the files at the top of a run.
var topFiles = []string{"report.html", "summary.json", "samples.csv", "samples.ndjson", "nodes.json", "job.fio", "steps.json"}

// fileLess puts the top files first, then by repetition (numerically) the
// monitor/ records and raw logs, by name.
func fileLess(a, b string) bool {
	ra, rb := rawRank(a), rawRank(b)
	if ra != rb {
		return ra < rb
	}
	return a < b
}

func rawRank(name string) int {
	for i, f := range topFiles {
		if name == f {
			return i - len(topFiles)
		}
	}
	elems := strings.Split(name, "/")
	if len(elems) == 3 {
		if rep, err := strconv.Atoi(elems[1]); err == nil {
			return rep
		}
	}
	return 1 << 30
}

// maxSummaryBytes bounds a summary.json the pages read: the controllers'
// are a few KiB.
const maxSummaryBytes = 4 << 20

// readSummary reads a run's summary.json; a missing or unreadable one is nil.
func (h *Handler) readSummary(ctx context.Context, r *run) {
	if !slices.Contains(r.Files, "summary.json") {
		return
	}
	key, err := r.Location.Summary()
	if err != nil {
		return
	}
	obj, err := h.store.NewReader(ctx, key)
	if err != nil {
		h.log.Error(err, "reading a run's summary", "key", key)
		return
	}
	defer func() { _ = obj.Close() }()
	data, err := io.ReadAll(io.LimitReader(obj, maxSummaryBytes+1))
	if err != nil {
		h.log.Error(err, "reading a run's summary", "key", key)
		return
	}
	if len(data) > maxSummaryBytes {
		h.log.Info("a run's summary is too large to show", "key", key, "max", maxSummaryBytes)
		return
	}
	var s results.RunSummary
	if err := json.Unmarshal(data, &s); err != nil {
		h.log.Error(err, "parsing a run's summary", "key", key)
		return
	}
	r.Summary = &s
}

// when is the time a run sorts by: its end, else its start.
func (r *run) when() time.Time {
	if r.Summary == nil {
		return time.Time{}
	}
	if !r.Summary.Finished.IsZero() {
		return r.Summary.Finished
	}
	return r.Summary.Started
}

// newestFirst sorts runs by time, newest first; runs without times last by location.
func newestFirst(runs []*run) {
	sort.SliceStable(runs, func(i, j int) bool {
		ti, tj := runs[i].when(), runs[j].when()
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return runs[i].path() < runs[j].path()
	})
}

// path is the run's escaped path, ns/Kind/name/uid.
func (r *run) path() string {
	l := r.Location
	return strings.Join([]string{url.PathEscape(l.Namespace), url.PathEscape(l.Kind), url.PathEscape(l.Name), url.PathEscape(l.UID)}, "/")
}

// fileHref is the escaped path of one of the run's files.
func (r *run) fileHref(name string) string {
	elems := strings.Split(name, "/")
	for i, e := range elems {
		elems[i] = url.PathEscape(e)
	}
	return r.path() + "/" + strings.Join(elems, "/")
}

// machineTypes are the distinct machine types of the run's nodes.
func (r *run) machineTypes() string {
	if r.Summary == nil {
		return ""
	}
	var out []string
	for _, n := range r.Summary.Nodes {
		if n.MachineType != "" && !slices.Contains(out, n.MachineType) {
			out = append(out, n.MachineType)
		}
	}
	return strings.Join(out, ", ")
}
