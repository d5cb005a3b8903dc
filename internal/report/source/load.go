package source

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/benchwright/benchwright/internal/results"
)

// SamplesFile is the name of a run's samples in a `benchwright run` results
// directory and in the artifact store.
const SamplesFile = results.SamplesNDJSONFile

// A Source yields samples, input by input; the name of an input (a file, a
// store object) names the run of its samples that name no benchmark. Files
// is the one source today; the artifact store and the cluster are others.
type Source interface {
	Samples(ctx context.Context, add func(input string, s results.Sample)) error
}

// Set is samples in memory, as a Source.
type Set struct {
	Origin  string
	Samples []results.Sample
}

// Files is a Source of paths: NDJSON sample files (`benchwright parse`
// output, samples.ndjson), or directories holding samples.ndjson, directly
// (a run's results directory) or below (an artifact-store prefix). Runs
// found under one directory come in the order they started (the timestamp
// of their first sample), then by path. Files are read a line at a time:
// a report over a large campaign holds its statistics, not its samples.
type Files []string

// Samples implements Source.
func (f Files) Samples(ctx context.Context, add func(string, results.Sample)) error {
	for _, path := range f {
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		files := []string{path}
		if info.IsDir() {
			if files, err = samplesFiles(ctx, path); err != nil {
				return err
			}
		}
		for _, file := range files {
			if err := readFile(ctx, file, add); err != nil {
				return err
			}
		}
	}
	return nil
}

// samplesFiles are DIR/samples.ndjson, or every samples.ndjson below DIR in
// the order their runs started.
func samplesFiles(ctx context.Context, dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, SamplesFile)); err == nil {
		return []string{filepath.Join(dir, SamplesFile)}, nil
	}
	var files []string
	started := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == SamplesFile {
			files = append(files, path)
			started[path] = firstTimestamp(path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no %s in it or below it", dir, SamplesFile)
	}
	sort.SliceStable(files, func(i, j int) bool {
		if ti, tj := started[files[i]], started[files[j]]; ti != tj {
			return ti < tj
		}
		return files[i] < files[j]
	})
	return files, nil
}

// firstTimestamp is the timestamp of a file's first sample, as sortable
// text ("" when there is none).
func firstTimestamp(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	line, _ := bufio.NewReader(f).ReadBytes('\n')
	var s results.Sample
	if json.Unmarshal(line, &s) != nil || s.Timestamp.IsZero() {
		return ""
	}
	return s.Timestamp.UTC().Format("2006-01-02T15:04:05.000000000")
}

// ErrNotSamples is wrapped by the errors of inputs that are not NDJSON
// samples.
var ErrNotSamples = errors.New("not a samples file")

// readFile reads an NDJSON file of samples a line at a time, as
// results.ReadNDJSON does, with an error that says what to do with a raw
// tool output or an empty file.
func readFile(ctx context.Context, path string, add func(string, results.Sample)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	n, err := results.DecodeNDJSON(ctx, f, func(s results.Sample) { add(path, s) })
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %w: %w (want NDJSON samples: convert a raw tool output with `benchwright parse --tool TOOL %s`)",
			path, ErrNotSamples, err, path)
	}
	if err == nil && n == 0 {
		return fmt.Errorf("%s: %w: it holds no sample", path, ErrNotSamples)
	}
	return err
}
