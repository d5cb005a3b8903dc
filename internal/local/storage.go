package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/results"
)

// RunStorage runs a StorageBenchmark here: fio or dd on directories under
// opts.WorkDir, every repetition, then writes the result files and returns them.
func RunStorage(ctx context.Context, b *benchv1.StorageBenchmark, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	res, err := newResult(kindStorage, b.Name, b.Namespace, b.Labels, opts)
	if err != nil {
		return nil, err
	}
	res.monitoring = b.Spec.Monitoring
	dirs, cleanup, err := volumeDirs(b, opts)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	opts.progress("%s: %s, %s, I/O in %s", b.Name, describeVolumes(b, len(dirs)), describeRepetitions(b.Spec.RepetitionPolicy), filepath.Dir(dirs[0]))

	var runOne func(ctx context.Context, rep int) ([]results.Sample, error)
	switch {
	case b.Spec.Fio != nil:
		jobs, err := fio.Expand(b.Spec.Fio)
		if err != nil {
			return nil, err
		}
		jobFile, err := fio.JobFile(jobs, fio.Targets{Dirs: dirs})
		if err != nil {
			return nil, err
		}
		if err := requireTool(opts.FioPath, "fio"); err != nil {
			return nil, err
		}
		runOne = func(ctx context.Context, rep int) ([]results.Sample, error) {
			return runFio(ctx, res, opts, rep, jobFile, jobs)
		}
	case b.Spec.DD != nil:
		if err := requireTool(opts.DDPath, "dd"); err != nil {
			return nil, err
		}
		runOne = func(ctx context.Context, rep int) ([]results.Sample, error) {
			return runDD(ctx, res, opts, rep, b.Spec.DD.Tests, dirs)
		}
	default:
		return nil, errors.New("the spec has neither fio nor dd")
	}

	var before func()
	if b.Spec.DropCaches { // before every repetition, as in the cluster
		before = func() {
			if err := dropCaches(); err != nil {
				opts.progress("warning: page cache not dropped: %v", err)
			}
		}
	}
	return res, res.repeat(ctx, opts, int(b.Spec.Repetitions), int(b.Spec.WarmupRepetitions), nil, before, runOne)
}

// volumeDirs makes one directory per volume of the spec under the work dir.
// Locally every volume kind becomes a directory: there are no PVCs here.
func volumeDirs(b *benchv1.StorageBenchmark, opts Options) ([]string, func(), error) {
	n := int(b.Spec.Volumes.Count)
	if hp := b.Spec.Volumes.HostPath; hp != nil {
		n = len(hp.Paths)
	}
	base, err := os.MkdirTemp(opts.WorkDir, "benchwright-"+b.Name+"-")
	if err != nil {
		return nil, nil, fmt.Errorf("creating the work directory under %s: %w", opts.WorkDir, err)
	}
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = filepath.Join(base, strconv.Itoa(i))
		if err := os.MkdirAll(dirs[i], 0o755); err != nil {
			return nil, nil, err
		}
	}
	return dirs, func() { _ = os.RemoveAll(base) }, nil
}

func describeVolumes(b *benchv1.StorageBenchmark, n int) string {
	v := b.Spec.Volumes
	switch {
	case v.Size != nil:
		return fmt.Sprintf("%d x %s PVC in the spec -> %d local director%s", v.Count, v.Size.String(), n, plural(n, "y", "ies"))
	case v.HostPath != nil:
		return fmt.Sprintf("%d host path(s) in the spec -> %d local director%s", len(v.HostPath.Paths), n, plural(n, "y", "ies"))
	}
	return "emptyDir -> 1 local directory"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// dropCaches writes back dirty pages and drops the page cache (needs root).
func dropCaches() error {
	syscall.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("%w (dropCaches needs root)", err)
	}
	return nil
}
