package source

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchwright/benchwright/internal/artifacts"
)

// fileBeside calls found with what decode makes of the file named name
// beside each input that is a local samples.ndjson. A missing file, one
// that is not a regular file (a link to a pipe or device) and one decode
// refuses are passed over.
func fileBeside[T any](ctx context.Context, inputs []string, name string, decode func(io.Reader) (T, bool), found func(string, T)) error {
	for _, input := range inputs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if artifacts.IsURL(input) || filepath.Base(input) != SamplesFile {
			continue
		}
		p := filepath.Join(filepath.Dir(input), name)
		if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
			continue
		}
		file, err := os.Open(p)
		if err != nil {
			continue
		}
		v, ok := decode(file)
		_ = file.Close()
		if ok {
			found(input, v)
		}
	}
	return nil
}

// storeBeside is fileBeside for the runs of the store u.
func storeBeside[T any](ctx context.Context, u StoreRuns, inputs []string, name string, decode func(io.Reader) (T, bool), found func(string, T)) error {
	return u.eachRun(ctx, inputs, func(store *artifacts.Store, input, prefix string) {
		r, err := store.NewReader(ctx, prefix+name)
		if err != nil {
			return
		}
		v, ok := decode(r)
		_ = r.Close()
		if ok {
			found(input, v)
		}
	})
}

// eachRun calls each with the store, the input and its run's prefix (its
// samples.ndjson's directory, ending in "/", or "") for every input that
// is a samples.ndjson of the store u.
func (u StoreRuns) eachRun(ctx context.Context, inputs []string, each func(store *artifacts.Store, input, prefix string)) error {
	store, err := artifacts.Open(ctx, string(u))
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	for _, input := range inputs {
		key, ok := strings.CutPrefix(input, store.URI(""))
		if !ok || (key != SamplesFile && !strings.HasSuffix(key, "/"+SamplesFile)) {
			continue
		}
		each(store, input, strings.TrimSuffix(key, SamplesFile))
	}
	return ctx.Err()
}
