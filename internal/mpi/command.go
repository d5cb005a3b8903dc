package mpi

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Step is one program the launcher runs, as argv: mpirun and its options,
// then the benchmark and its arguments. Nothing passes through a shell.
type Step struct {
	// Tests are the spec's tests this step measures.
	Tests []string `json:"tests"`
	// Program is the benchmark program mpirun starts: an OSU binary (named
	// like the test), IMB-MPI1 or ior.
	Program string `json:"program"`
	// Argv is the whole command line.
	Argv []string `json:"argv"`
}

// Launch is what one repetition runs on the launcher: the steps in order, and
// environment the launcher itself must have (MPICH's -envlist forwards
// variables from it).
type Launch struct {
	Steps []Step           `json:"steps"`
	Env   []benchv1.EnvVar `json:"env,omitempty"`
	// MPI is the spec's mpi.implementation, the dialect of the command
	// lines: the launcher checks its mpirun is that MPI before any step.
	MPI benchv1.MPIImplementation `json:"mpi,omitempty"`
}

// Options adapt the command lines to where they run.
type Options struct {
	// Local runs every rank on this machine (benchwright run): OpenMPI may put
	// more ranks than cores and run as root.
	Local bool
	// IORDir is the directory IOR writes its test file in.
	IORDir string
}

// Default values the spec leaves open.
const (
	defaultIORDir = "/data"
	imbBinary     = "IMB-MPI1"
	iorBinary     = "ior"
)

// BuildLaunch turns a spec into the launcher's steps: one mpirun per OSU test,
// one IMB-MPI1 run for all IMB tests, one IOR run for its phases.
func BuildLaunch(spec *benchv1.MPIBenchmarkSpec, opts Options) (*Launch, error) {
	if spec.Layout.Nodes < 1 || spec.Layout.RanksPerNode < 1 {
		return nil, fmt.Errorf("layout needs at least 1 node and 1 rank per node, not %dx%d", spec.Layout.Nodes, spec.Layout.RanksPerNode)
	}
	prefix, env, err := mpirunPrefix(spec, opts)
	if err != nil {
		return nil, err
	}
	l := &Launch{Env: env, MPI: spec.MPI.Implementation}
	switch spec.Suite {
	case benchv1.SuiteOSU:
		for _, t := range spec.Tests {
			l.Steps = append(l.Steps, Step{Tests: []string{t}, Program: t, Argv: concat(prefix, osuArgs(spec, t))})
		}
	case benchv1.SuiteIMB:
		args, err := imbArgs(spec)
		if err != nil {
			return nil, err
		}
		l.Steps = []Step{{Tests: slices.Clone(spec.Tests), Program: imbBinary, Argv: concat(prefix, args)}}
	case benchv1.SuiteIOR:
		args, err := iorArgs(spec, opts)
		if err != nil {
			return nil, err
		}
		l.Steps = []Step{{Tests: slices.Clone(spec.Tests), Program: iorBinary, Argv: concat(prefix, args)}}
	default:
		return nil, fmt.Errorf("unknown suite %q: use osu, imb or ior", spec.Suite)
	}
	return l, nil
}

// Ranks is the total number of MPI ranks.
func Ranks(spec *benchv1.MPIBenchmarkSpec) int32 {
	return spec.Layout.Nodes * spec.Layout.RanksPerNodeOrDefault()
}

func concat(a, b []string) []string { return append(slices.Clone(a), b...) }

// osuArgs: -m min:max, -i iterations, -x warm-up, -f full statistics
// (collectives), then the extra arguments.
func osuArgs(spec *benchv1.MPIBenchmarkSpec, test string) []string {
	args := []string{test}
	if ms := spec.MessageSizes; ms != nil && test != "osu_barrier" {
		args = append(args, "-m", fmt.Sprintf("%d:%d", ms.Min, ms.Max))
	}
	if spec.Iterations != nil {
		args = append(args, "-i", strconv.Itoa(int(*spec.Iterations)))
	}
	if spec.WarmupIterations != nil {
		args = append(args, "-x", strconv.Itoa(int(*spec.WarmupIterations)))
	}
	if spec.FullStatistics != nil && *spec.FullStatistics && osuCollective(test) {
		args = append(args, "-f")
	}
	return append(args, spec.MPI.ExtraArgs...)
}

// osuCollective tells collectives (which print min/max with -f) from
// point-to-point tests.
func osuCollective(test string) bool {
	switch test {
	case "osu_latency", "osu_bw", "osu_bibw", "osu_latency_mt", "osu_multi_lat", "osu_mbw_mr":
		return false
	}
	return true
}

// imbArgs: the benchmarks, -npmin (run at the full rank count only), -msglog
// and -iter. IMB-MPI1 has no warm-up option: it warms up on its own.
func imbArgs(spec *benchv1.MPIBenchmarkSpec) ([]string, error) {
	args := append([]string{imbBinary}, spec.Tests...)
	args = append(args, "-npmin", strconv.Itoa(int(Ranks(spec))))
	if ms := spec.MessageSizes; ms != nil {
		maxLog, err := log2(ms.Max)
		if err != nil {
			return nil, fmt.Errorf("messageSizes.max: %w", err)
		}
		if ms.Min == 0 {
			// 0, 1, 2, 4, ... 2^max
			args = append(args, "-msglog", strconv.Itoa(maxLog))
		} else {
			minLog, err := log2(ms.Min)
			if err != nil {
				return nil, fmt.Errorf("messageSizes.min: %w", err)
			}
			args = append(args, "-msglog", fmt.Sprintf("%d:%d", minLog, maxLog))
		}
	}
	if spec.Iterations != nil {
		args = append(args, "-iter", strconv.Itoa(int(*spec.Iterations)))
	}
	return append(args, spec.MPI.ExtraArgs...), nil
}

func log2(n int64) (int, error) {
	if n < 1 || n&(n-1) != 0 {
		return 0, fmt.Errorf("IMB takes powers of two (-msglog), not %d", n)
	}
	return bits.TrailingZeros64(uint64(n)), nil
}

// iorArgs: API, sizes, phases, file per process, fsync, O_DIRECT, one
// iteration (benchwright repeats whole runs), the test file.
func iorArgs(spec *benchv1.MPIBenchmarkSpec, opts Options) ([]string, error) {
	s := spec.IOR
	if s == nil {
		return nil, fmt.Errorf("suite ior needs ior settings")
	}
	dir := opts.IORDir
	if dir == "" {
		dir = defaultIORDir
	}
	if !strings.HasPrefix(dir, "/") {
		return nil, fmt.Errorf("IOR directory %q is not absolute", dir)
	}
	args := []string{iorBinary, "-a", string(s.APIOrDefault()), "-t", s.TransferSizeOrDefault(), "-b", s.BlockSizeOrDefault(),
		"-s", strconv.Itoa(int(s.SegmentsOrDefault())), "-i", "1"}
	write, read := slices.Contains(spec.Tests, "write"), slices.Contains(spec.Tests, "read")
	// A read needs the file: it is written first even when only reads count.
	args = append(args, "-w")
	if read {
		args = append(args, "-r")
		if spec.Layout.Nodes > 1 {
			// Each rank reads what a rank on another node wrote, so no node
			// reads back its own page cache.
			args = append(args, "-C")
		}
	}
	if !write && !read {
		return nil, fmt.Errorf("ior tests are write and/or read, not %v", spec.Tests)
	}
	if s.FilePerProcess {
		args = append(args, "-F")
	}
	if s.Fsync {
		args = append(args, "-e")
	}
	if s.DirectIO != nil && *s.DirectIO {
		args = append(args, "--posix.odirect")
	}
	args = append(args, "-o", strings.TrimSuffix(dir, "/")+"/ior.dat")
	return append(args, spec.MPI.ExtraArgs...), nil
}
