package source

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/sampler"
)

// MonitorFiles implements MonitorSource: the regular files of
// monitor/*/*.json beside each samples.ndjson input.
func (f Files) MonitorFiles(ctx context.Context, inputs []string, found func(string, []MonitorFile, error)) error {
	for _, input := range inputs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if artifacts.IsURL(input) || filepath.Base(input) != SamplesFile {
			continue
		}
		files, err := localMonitorFiles(filepath.Dir(input))
		found(input, files, err)
	}
	return nil
}

// localMonitorFiles lists dir/monitor/<repetition>/<pod>.json: regular
// files only (not a pipe or a device a link may name); none when there is
// no monitor directory.
func localMonitorFiles(dir string) ([]MonitorFile, error) {
	root := filepath.Join(dir, sampler.MonitorDir)
	reps, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []MonitorFile
	for _, rep := range reps {
		if !rep.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, rep.Name()))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			p := filepath.Join(root, rep.Name(), e.Name())
			if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
				continue
			}
			out = append(out, MonitorFile{Name: path.Join(sampler.MonitorDir, rep.Name(), e.Name()),
				Open: func(context.Context) (io.ReadCloser, error) { return os.Open(p) }})
		}
	}
	return out, nil
}

// MonitorFiles implements MonitorSource: the objects under monitor/ beside
// each samples.ndjson of the store that is an input.
func (u StoreRuns) MonitorFiles(ctx context.Context, inputs []string, found func(string, []MonitorFile, error)) error {
	return u.eachRun(ctx, inputs, func(store *artifacts.Store, input, prefix string) {
		files, err := StoreMonitorFiles(ctx, store, prefix)
		found(input, files, err)
	})
}

// StoreMonitorFiles lists the record files of the run at prefix of store
// (its samples.ndjson's directory, ending in "/", or "").
func StoreMonitorFiles(ctx context.Context, store *artifacts.Store, prefix string) ([]MonitorFile, error) {
	keys, err := store.List(ctx, prefix+sampler.MonitorDir+"/")
	if err != nil {
		return nil, err
	}
	out := make([]MonitorFile, 0, len(keys))
	for _, key := range keys {
		out = append(out, MonitorFile{Name: strings.TrimPrefix(key, prefix),
			Open: func(ctx context.Context) (io.ReadCloser, error) { return store.NewReader(ctx, key) }})
	}
	return out, nil
}

// MonitorFiles implements MonitorSource: each source's that is one.
func (m multi) MonitorFiles(ctx context.Context, inputs []string, found func(string, []MonitorFile, error)) error {
	return eachOf(ctx, m, func(ms MonitorSource) error { return ms.MonitorFiles(ctx, inputs, found) })
}

// eachOf calls read with each of m's sources that is an S, on after one
// fails (the errors joined) until ctx ends.
func eachOf[S any](ctx context.Context, m multi, read func(S) error) error {
	var errs []error
	for _, s := range m {
		if src, ok := s.(S); ok {
			if err := read(src); err != nil {
				if ctx.Err() != nil {
					return err
				}
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
