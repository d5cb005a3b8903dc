package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/results"
)

// errNoOutput is a tool run that printed no summary at all.
var errNoOutput = errors.New("the tool printed nothing")

// runDD runs every dd test of one repetition on the first volume directory,
// with the very argv a pod runs (fio.DDArgs), only the dd binary and the
// scratch directory of multi-process tests being the local ones.
func runDD(ctx context.Context, res *Result, opts Options, rep int, tests []benchv1.DDTest, dirs []string) ([]results.Sample, error) {
	dir := dirs[0]
	scratch, err := os.MkdirTemp(opts.WorkDir, "benchwright-dd-")
	if err != nil {
		return nil, fmt.Errorf("creating dd's scratch directory under %s: %w", opts.WorkDir, err)
	}
	defer os.RemoveAll(scratch)
	x := fio.DDExec{DD: opts.DDPath, Scratch: scratch}
	if prep := fio.DDPrepareArgs(tests, dir, x); prep != nil {
		if out, err := exec.CommandContext(ctx, prep[0], prep[1:]...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("preparing the dd test files: %w\n%s", err, tail(out))
		}
	}
	var all []results.Sample
	for _, t := range tests {
		args, err := fio.DDArgs(t, dir, x)
		if err != nil {
			return nil, err
		}
		one := t
		one.Processes = 1
		shown, _ := fio.DDArgs(one, dir, fio.DDExec{DD: "dd"})
		opts.progress("  dd %s: %d x %v", t.Name, t.ProcessesOrDefault(), shown[1:])
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		started := time.Now()
		runErr := cmd.Run()
		res.phase(rep, t.Name, started, time.Now())
		logPath, err := res.rawPath(rep, "dd-"+t.Name+".log")
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(logPath, out.Bytes(), 0o644); err != nil {
			return nil, err
		}
		if runErr != nil {
			return nil, fmt.Errorf("dd %s failed: %w\n%s", t.Name, runErr, tail(out.Bytes()))
		}
		if out.Len() == 0 {
			return nil, fmt.Errorf("dd %s: %w", t.Name, errNoOutput)
		}
		samples, err := fio.DDTestSamples(t, out.Bytes())
		if err != nil {
			return nil, fmt.Errorf("parsing dd %s output: %w\n%s", t.Name, err, tail(out.Bytes()))
		}
		all = append(all, samples...)
	}
	return all, nil
}
