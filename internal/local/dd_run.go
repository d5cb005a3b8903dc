package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/results"
)

// errNoOutput is a tool run that printed no summary at all.
var errNoOutput = errors.New("the tool printed nothing")

// runDD runs every dd test of one repetition on the first volume directory.
func runDD(ctx context.Context, res *Result, opts Options, rep int, tests []benchv1.DDTest, dirs []string) ([]results.Sample, error) {
	dir := dirs[0]
	if prep := fio.DDPrepareArgs(tests, dir); prep != nil {
		if out, err := exec.CommandContext(ctx, opts.DDPath, prep[1:]...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("preparing the dd test file: %w\n%s", err, tail(out))
		}
	}
	var all []results.Sample
	for _, t := range tests {
		args, err := fio.DDArgs(t, dir)
		if err != nil {
			return nil, err
		}
		opts.progress("  dd %s: %v", t.Name, args[1:])
		cmd := exec.CommandContext(ctx, opts.DDPath, args[1:]...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		runErr := cmd.Run()
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
		parsed, err := fio.ParseDD(out.Bytes())
		if err != nil {
			return nil, fmt.Errorf("parsing dd %s output: %w\n%s", t.Name, err, tail(out.Bytes()))
		}
		if len(parsed) == 0 {
			return nil, fmt.Errorf("dd %s: %w", t.Name, errNoOutput)
		}
		for _, p := range parsed {
			samples := fio.DDSamples(p, t.Name, string(t.Operation))
			for i := range samples {
				samples[i].Labels[results.LabelBlockSize] = t.BlockSize
				samples[i].Labels["flags"] = t.OFlag + t.IFlag
			}
			all = append(all, samples...)
		}
	}
	return all, nil
}
