package source

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
)

// StoreRuns is a Source of every run under an artifact-store URL: the whole
// store (gs://bucket/prefix, file:///var/lib/benchwright/artifacts), or a part
// of it such as one namespace, kind or benchmark (…/ns/StorageBenchmark/name).
type StoreRuns string

// Samples implements Source: each run's samples.ndjson under the URL.
func (u StoreRuns) Samples(ctx context.Context, add func(string, results.Sample)) error {
	store, err := artifacts.Open(ctx, string(u))
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	keys, err := store.List(ctx, "")
	if err != nil {
		return err
	}
	found := 0
	for _, key := range keys {
		if key != SamplesFile && !strings.HasSuffix(key, "/"+SamplesFile) {
			continue
		}
		data, err := store.Get(ctx, key)
		if err != nil {
			return err
		}
		uri := store.URI(key)
		if _, err := results.DecodeNDJSON(ctx, bytes.NewReader(data), func(s results.Sample) { add(uri, s) }); err != nil {
			return fmt.Errorf("%s: %w", uri, err)
		}
		found++
	}
	if found == 0 {
		return fmt.Errorf("%s holds no run (no %s below it)", u, SamplesFile)
	}
	return nil
}

// Sources reads command-line arguments, local files and store URLs, in the
// order given: the first run is the comparisons' baseline.
func Sources(args []string) Source {
	var all multi
	var files Files
	for _, a := range args {
		if !artifacts.IsURL(a) {
			files = append(files, a)
			continue
		}
		if len(files) > 0 {
			all, files = append(all, files), nil
		}
		all = append(all, StoreRuns(a))
	}
	if len(files) > 0 {
		all = append(all, files)
	}
	return all
}

// multi reads several sources in order.
type multi []Source

func (m multi) Samples(ctx context.Context, add func(string, results.Sample)) error {
	for _, s := range m {
		if err := s.Samples(ctx, add); err != nil {
			return err
		}
	}
	return nil
}

// Join reads sources one after the other, in order.
func Join(sources ...Source) Source { return multi(sources) }

// Fetched is a Source of one run's samples.ndjson, fetched when read (through
// the API server's proxy to the manager, say); Name names its samples.
type Fetched struct {
	Name  string
	Fetch func(ctx context.Context) ([]byte, error)
}

// Samples implements Source.
func (f Fetched) Samples(ctx context.Context, add func(string, results.Sample)) error {
	data, err := f.Fetch(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	n, err := results.DecodeNDJSON(ctx, bytes.NewReader(data), func(s results.Sample) { add(f.Name, s) })
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: it holds no sample", ErrNotSamples)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}
