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
	dirs, cleanup, err := volumeDirs(b, opts)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	opts.progress("%s: %s, %d repetition(s), I/O in %s", b.Name, describeVolumes(b, len(dirs)), b.Spec.Repetitions, filepath.Dir(dirs[0]))

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

	total := int(b.Spec.Repetitions)
	for rep := 0; rep < total; rep++ {
		if b.Spec.DropCaches { // before every repetition, as in the cluster
			if err := dropCaches(); err != nil {
				opts.progress("warning: page cache not dropped: %v", err)
			}
		}
		warm := ""
		if rep < int(b.Spec.WarmupRepetitions) {
			warm = " (warm-up, not counted)"
		}
		opts.progress("repetition %d/%d%s", rep+1, total, warm)
		samples, err := runOne(ctx, rep)
		if err != nil {
			return res, fmt.Errorf("repetition %d: %w", rep+1, err)
		}
		for i := range samples {
			res.label(&samples[i], rep, rep < int(b.Spec.WarmupRepetitions))
		}
		res.Samples = append(res.Samples, samples...)
	}
	res.Summaries = results.Summarize(res.Samples, results.SummarizeOptions{WarmupRepetitions: int(b.Spec.WarmupRepetitions)})
	if err := res.write(); err != nil {
		return res, err
	}
	return res, nil
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
