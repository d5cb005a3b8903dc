package artifactserver

import (
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/sampler"
)

// errBadPath is a path no run or file of the layout can have.
var errBadPath = errors.New("not a path of the artifact layout")

// runFiles are the files at the top of a run, by name, as the layout names
// them; raw/<repetition>/<pod>.log and monitor/<repetition>/<pod>.json are
// the others.
var runFiles = map[string]func(artifacts.Location) (string, error){
	"samples.ndjson": artifacts.Location.SamplesNDJSON,
	"samples.csv":    artifacts.Location.SamplesCSV,
	"summary.json":   artifacts.Location.Summary,
	"nodes.json":     artifacts.Location.Nodes,
	"report.html":    artifacts.Location.Report,
	"job.fio":        artifacts.Location.JobFile,
	"steps.json":     artifacts.Location.Steps,
}

// parseLocation reads ns/Kind/name/uid, checked as the store checks them.
func parseLocation(elems []string) (artifacts.Location, error) {
	if len(elems) != 4 {
		return artifacts.Location{}, errBadPath
	}
	for _, e := range elems {
		if strings.IndexFunc(e, unicode.IsControl) >= 0 {
			return artifacts.Location{}, errBadPath
		}
	}
	loc := artifacts.Location{Namespace: elems[0], Kind: elems[1], Name: elems[2], UID: elems[3]}
	if err := loc.Validate(); err != nil {
		return artifacts.Location{}, errBadPath
	}
	return loc, nil
}

// parseKey reads the key of one of a run's files, ns/Kind/name/uid/<file>:
// only files of the layout, rebuilt through artifacts.Location so that the
// key served is exactly one the store writes.
func parseKey(path string) (loc artifacts.Location, key string, err error) {
	elems := strings.Split(path, "/")
	if len(elems) < 5 {
		return loc, "", errBadPath
	}
	if loc, err = parseLocation(elems[:4]); err != nil {
		return loc, "", err
	}
	file := elems[4:]
	switch {
	case len(file) == 1 && runFiles[file[0]] != nil:
		key, err = runFiles[file[0]](loc)
	case len(file) == 3 && file[0] == "raw" && strings.HasSuffix(file[2], ".log"):
		rep, perr := strconv.Atoi(file[1])
		if perr != nil {
			return loc, "", errBadPath
		}
		key, err = loc.RawLog(rep, strings.TrimSuffix(file[2], ".log"))
	case len(file) == 3 && file[0] == sampler.MonitorDir && strings.HasSuffix(file[2], ".json"):
		rep, perr := strconv.Atoi(file[1])
		if perr != nil {
			return loc, "", errBadPath
		}
		key, err = loc.Monitor(rep, strings.TrimSuffix(file[2], ".json"))
	default:
		return loc, "", errBadPath
	}
	if err != nil || key != path || strings.IndexFunc(key, unicode.IsControl) >= 0 {
		return loc, "", errBadPath
	}
	return loc, key, nil
}

// contentType is the type a file of the layout is served with.
func contentType(key string) string {
	switch {
	case strings.HasSuffix(key, ".html"):
		return "text/html; charset=utf-8"
	case strings.HasSuffix(key, ".json"):
		return "application/json"
	case strings.HasSuffix(key, ".ndjson"):
		return "application/x-ndjson"
	case strings.HasSuffix(key, ".csv"):
		return "text/csv; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}
