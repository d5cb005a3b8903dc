package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/results"
)

const kindMPI = "MPIBenchmark"

// MPIOptions are Options plus what only MPI runs need.
type MPIOptions struct {
	Options
	// MPIRun is the mpirun to run (default "mpirun"), e.g. mpirun.mpich for an
	// MPICH spec. It must be of the spec's MPI implementation.
	MPIRun string
}

// RunMPI runs an MPIBenchmark here: the spec's mpirun command lines with every
// rank on this machine (layout.nodes x ranksPerNode ranks, oversubscribed if
// need be), each repetition through the launcher's step runner, its log in
// raw/<rep>/launcher.log, each step's output parsed by the suite's parser.
// It writes the result files and returns them.
func RunMPI(ctx context.Context, in *benchv1.MPIBenchmark, mopts MPIOptions) (*Result, error) {
	opts := mopts.withDefaults()
	b := in.DeepCopy()
	defaultMPI(b)
	spec := &b.Spec
	if spec.WarmupRepetitions >= spec.Repetitions {
		return nil, fmt.Errorf("warmupRepetitions (%d) must be smaller than repetitions (%d), or no repetition is left to count", spec.WarmupRepetitions, spec.Repetitions)
	}
	parse, ok := mpi.Parser(spec.Suite)
	if !ok {
		return nil, fmt.Errorf("unknown suite %q: use osu, imb or ior", spec.Suite)
	}
	iorDir, cleanup, err := makeIORDir(b, opts)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	launch, err := mpi.BuildLaunch(spec, mpi.Options{Local: true, IORDir: iorDir})
	if err != nil {
		return nil, err
	}
	mpirun := cmp.Or(mopts.MPIRun, "mpirun")
	for i := range launch.Steps {
		if argv := launch.Steps[i].Argv; argv[0] == "mpirun" {
			argv[0] = mpirun
		}
	}
	if err := checkPrograms(spec.Suite, launch.Steps); err != nil {
		return nil, err
	}
	version, err := checkMPIRun(ctx, mpirun, spec.MPI.Implementation)
	if err != nil {
		return nil, err
	}
	res, err := newResult(kindMPI, b.Name, b.Namespace, b.Labels, opts)
	if err != nil {
		return nil, err
	}
	env := mpiEnv(launch)
	opts.progress("%s: %s (%s), %s", b.Name, strings.Join(spec.Tests, ", "), spec.Suite, describeRepetitions(spec.RepetitionPolicy))
	opts.progress("%s; %s", describeLayout(spec), version)
	if iorDir != "" {
		opts.progress("IOR writes in %s", iorDir)
	}

	res.sampleLabels = map[string]string{results.LabelMPI: string(spec.MPI.Implementation)}
	var groupBy []string
	if spec.Suite != benchv1.SuiteIOR {
		groupBy = []string{results.LabelMsgSize}
	}
	return res, res.repeat(ctx, opts, int(spec.Repetitions), int(spec.WarmupRepetitions), groupBy, nil,
		func(ctx context.Context, rep int) ([]results.Sample, error) {
			return runMPIRepetition(ctx, res, opts, rep, launch.Steps, env, parse)
		})
}

// runMPIRepetition runs the steps once, logging to raw/<rep>/launcher.log,
// and returns the samples of the spec's tests in each step's output.
func runMPIRepetition(ctx context.Context, res *Result, opts Options, rep int, steps []mpi.Step, env []string,
	parse func([]byte) ([]results.Sample, error)) ([]results.Sample, error) {
	path, err := res.rawPath(rep, "launcher.log")
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	status := func(line string) {
		opts.progress("  %s", strings.TrimSuffix(strings.TrimPrefix(line, "==> benchwright "), " <=="))
	}
	_, runErr := mpi.RunSteps(ctx, steps, f, mpi.RunOptions{Env: env, Status: status})
	if err := errors.Join(runErr, f.Close()); err != nil {
		return nil, err
	}
	log, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	logs, err := mpi.SplitSteps(log)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var all []results.Sample
	for i, step := range steps {
		what := fmt.Sprintf("step %d/%d (%s)", i+1, len(steps), strings.Join(step.Tests, ", "))
		if i >= len(logs) {
			return nil, fmt.Errorf("%s did not run (log: %s)", what, path)
		}
		out := logs[i].Output
		if code := logs[i].ExitCode; code != 0 {
			if hint := mpi.StepHint(step.Program, code, out); hint != "" {
				what += fmt.Sprintf(" exited with code %d: %s", code, hint)
			} else {
				what += fmt.Sprintf(" exited with code %d", code)
			}
			return nil, fmt.Errorf("%s (log: %s)\n%s", what, path, tail(out))
		}
		parsed, err := parse(out)
		if err != nil {
			return nil, fmt.Errorf("parsing the output of %s: %w (log: %s)\n%s", what, err, path, tail(out))
		}
		n := len(all)
		for _, s := range parsed {
			if slices.Contains(step.Tests, s.Test) {
				all = append(all, s)
			}
		}
		if len(all) == n {
			return nil, fmt.Errorf("%s printed no figures of %s (log: %s)\n%s", what, strings.Join(step.Tests, ", "), path, tail(out))
		}
	}
	return all, nil
}

// defaultMPI applies the CRD's defaults that the local run depends on, for
// callers of RunMPI that build the object in Go: LoadFile's specs already
// have every CRD default (internal/validation).
func defaultMPI(b *benchv1.MPIBenchmark) {
	s := &b.Spec
	s.Repetitions = s.RepetitionsOrDefault()
	s.Layout.RanksPerNode = s.Layout.RanksPerNodeOrDefault()
	s.MPI.Implementation = s.MPI.ImplementationOrDefault()
}

// makeIORDir is the directory IOR writes in, under the work dir; none for
// the other suites.
func makeIORDir(b *benchv1.MPIBenchmark, opts Options) (string, func(), error) {
	if b.Spec.Suite != benchv1.SuiteIOR {
		return "", func() {}, nil
	}
	dir, err := os.MkdirTemp(opts.WorkDir, "benchwright-"+b.Name+"-")
	if err != nil {
		return "", nil, fmt.Errorf("creating the IOR directory under %s: %w", opts.WorkDir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	return abs, func() { _ = os.RemoveAll(abs) }, nil
}

// mpiEnv is the launcher's environment for the spec (MPICH's -envlist
// values), and Open MPI's consent to run as root when we are root.
func mpiEnv(l *mpi.Launch) []string {
	var env []string
	for _, e := range l.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	if os.Geteuid() == 0 {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	return env
}

// describeLayout says where the spec's ranks run here: all on this machine.
func describeLayout(s *benchv1.MPIBenchmarkSpec) string {
	l := s.Layout
	d := fmt.Sprintf("layout %d node%s x %d rank%s per node: all %d ranks run on this machine", l.Nodes, plural(int(l.Nodes), "", "s"),
		l.RanksPerNode, plural(int(l.RanksPerNode), "", "s"), mpi.Ranks(s))
	if l.Nodes > 1 {
		d += " (no other nodes here: figures are on-node, not between nodes)"
	}
	return d
}
