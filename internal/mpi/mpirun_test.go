package mpi

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func osuSpec(impl benchv1.MPIImplementation, nodes, rpn int32, binding *benchv1.CPUBinding) *benchv1.MPIBenchmarkSpec {
	return &benchv1.MPIBenchmarkSpec{
		Suite: benchv1.SuiteOSU, Tests: []string{"osu_latency"},
		Layout:       benchv1.MPILayout{Nodes: nodes, RanksPerNode: rpn, CPUBinding: binding},
		MPI:          benchv1.MPISettings{Implementation: impl, Env: []benchv1.EnvVar{{Name: "FI_PROVIDER", Value: "tcp"}}},
		MessageSizes: &benchv1.MessageSizes{Min: 1, Max: 4194304}, Iterations: ptr.To[int32](1000), WarmupIterations: ptr.To[int32](100),
	}
}

func TestMPIRunDialects(t *testing.T) {
	explicit := &benchv1.CPUBinding{Policy: benchv1.BindExplicit, CPUs: []int32{0, 16}}
	bench := []string{"osu_latency", "-m", "1:4194304", "-i", "1000", "-x", "100"}
	for _, tc := range []struct {
		name string
		spec *benchv1.MPIBenchmarkSpec
		argv []string
		env  []benchv1.EnvVar
	}{
		{"OpenMPI off-node, core binding by default", osuSpec(benchv1.OpenMPI, 2, 1, nil),
			[]string{"mpirun", "-np", "2", "--map-by", "ppr:1:node", "--bind-to", "core", "--report-bindings", "--mca", "btl_vader_single_copy_mechanism", "none", "-x", "FI_PROVIDER=tcp"}, nil},
		{"OpenMPI on-node, explicit CPUs", osuSpec(benchv1.OpenMPI, 1, 2, explicit),
			[]string{"mpirun", "-np", "2", "--map-by", "ppr:2:node", "--cpu-set", "0,16", "--bind-to", "cpu-list:ordered", "--report-bindings", "--mca", "btl_vader_single_copy_mechanism", "none", "-x", "FI_PROVIDER=tcp"}, nil},
		{"OpenMPI, the spec's own single-copy choice", func() *benchv1.MPIBenchmarkSpec {
			s := osuSpec(benchv1.OpenMPI, 1, 2, nil)
			s.MPI.Env = []benchv1.EnvVar{{Name: "OMPI_MCA_btl_vader_single_copy_mechanism", Value: "cma"}}
			return s
		}(),
			[]string{"mpirun", "-np", "2", "--map-by", "ppr:2:node", "--bind-to", "core", "--report-bindings", "-x", "OMPI_MCA_btl_vader_single_copy_mechanism=cma"}, nil},
		{"Intel MPI, socket domains", osuSpec(benchv1.IntelMPI, 2, 1, &benchv1.CPUBinding{Policy: benchv1.BindSocket}),
			[]string{"mpirun", "-n", "2", "-ppn", "1", "-genv", "I_MPI_PIN_DOMAIN", "socket", "-genv", "FI_PROVIDER", "tcp"}, nil},
		{"Intel MPI, explicit CPUs", osuSpec(benchv1.IntelMPI, 1, 2, explicit),
			[]string{"mpirun", "-n", "2", "-ppn", "2", "-genv", "I_MPI_PIN_PROCESSOR_LIST", "0,16", "-genv", "FI_PROVIDER", "tcp"}, nil},
		{"Intel MPI, no pinning", osuSpec(benchv1.IntelMPI, 2, 1, &benchv1.CPUBinding{Policy: benchv1.BindNone}),
			[]string{"mpirun", "-n", "2", "-ppn", "1", "-genv", "I_MPI_PIN", "0", "-genv", "FI_PROVIDER", "tcp"}, nil},
		{"MPICH, env through the launcher", osuSpec(benchv1.MPICH, 1, 2, explicit),
			[]string{"mpirun", "-n", "2", "-ppn", "2", "-bind-to", "user:0,16", "-envlist", "FI_PROVIDER,UCX_NET_DEVICES"},
			[]benchv1.EnvVar{{Name: "FI_PROVIDER", Value: "tcp"}, {Name: "UCX_NET_DEVICES", Value: "eth0"}}},
		{"MPICH, the spec's own UCX transports", func() *benchv1.MPIBenchmarkSpec {
			s := osuSpec(benchv1.MPICH, 2, 1, nil)
			s.MPI.Env = []benchv1.EnvVar{{Name: "UCX_TLS", Value: "tcp"}}
			return s
		}(),
			[]string{"mpirun", "-n", "2", "-ppn", "1", "-bind-to", "core", "-envlist", "UCX_TLS"},
			[]benchv1.EnvVar{{Name: "UCX_TLS", Value: "tcp"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := BuildLaunch(tc.spec, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(append(tc.argv, bench...), l.Steps[0].Argv); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.env, l.Env); diff != "" {
				t.Errorf("launcher env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBenchmarkArguments(t *testing.T) {
	imb := &benchv1.MPIBenchmarkSpec{Suite: benchv1.SuiteIMB, Tests: []string{"PingPong", "Allreduce"},
		Layout: benchv1.MPILayout{Nodes: 2, RanksPerNode: 1}, MPI: benchv1.MPISettings{Implementation: benchv1.IntelMPI, ExtraArgs: []string{"-off_cache", "-1"}},
		MessageSizes: &benchv1.MessageSizes{Min: 0, Max: 4194304}, Iterations: ptr.To[int32](200)}
	ior := &benchv1.MPIBenchmarkSpec{Suite: benchv1.SuiteIOR, Tests: []string{"write", "read"},
		Layout: benchv1.MPILayout{Nodes: 4, RanksPerNode: 8}, MPI: benchv1.MPISettings{Implementation: benchv1.OpenMPI},
		IOR: &benchv1.IORSettings{API: "MPIIO", TransferSize: "4m", BlockSize: "64m", Segments: 2, FilePerProcess: true, Fsync: true, DirectIO: ptr.To(true)}}
	collective := osuSpec(benchv1.OpenMPI, 4, 2, nil)
	collective.Tests = []string{"osu_allreduce", "osu_barrier"}
	collective.FullStatistics = ptr.To(true)
	for _, tc := range []struct {
		name  string
		spec  *benchv1.MPIBenchmarkSpec
		steps [][]string // argv after mpirun's own options
	}{
		{"IMB: one run for every benchmark, at the full rank count only", imb,
			[][]string{{"IMB-MPI1", "PingPong", "Allreduce", "-npmin", "2", "-msglog", "22", "-iter", "200", "-off_cache", "-1"}}},
		{"IOR: phases, file per process, fsync, O_DIRECT, reads from another node", ior,
			[][]string{{"ior", "-a", "MPIIO", "-t", "4m", "-b", "64m", "-s", "2", "-i", "1", "-w", "-r", "-C", "-F", "-e", "--posix.odirect", "-o", "/data/ior.dat"}}},
		{"OSU collectives: one run each, -f where OSU knows it, no sizes for barrier", collective,
			[][]string{
				{"osu_allreduce", "-m", "1:4194304", "-i", "1000", "-x", "100", "-f"},
				{"osu_barrier", "-i", "1000", "-x", "100", "-f"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := BuildLaunch(tc.spec, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got [][]string
			for _, s := range l.Steps {
				i := slicesIndex(s.Argv, tc.steps[0][0])
				if i < 0 {
					i = slicesIndex(s.Argv, "osu_barrier")
				}
				got = append(got, s.Argv[i:])
			}
			if diff := cmp.Diff(tc.steps, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
	imb.MessageSizes = &benchv1.MessageSizes{Min: 8, Max: 1024}
	if l, err := BuildLaunch(imb, Options{}); err != nil || !strings.Contains(strings.Join(l.Steps[0].Argv, " "), "-msglog 3:10") {
		t.Errorf("IMB 8..1024 bytes: %v %v", l, err)
	}
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestBuildLaunchRejects(t *testing.T) {
	descending := osuSpec(benchv1.OpenMPI, 1, 2, &benchv1.CPUBinding{Policy: benchv1.BindExplicit, CPUs: []int32{16, 0}})
	imbOdd := &benchv1.MPIBenchmarkSpec{Suite: benchv1.SuiteIMB, Tests: []string{"PingPong"}, Layout: benchv1.MPILayout{Nodes: 2, RanksPerNode: 1},
		MessageSizes: &benchv1.MessageSizes{Max: 1000}}
	unknown := osuSpec("LAM", 2, 1, nil)
	for name, tc := range map[string]struct {
		spec *benchv1.MPIBenchmarkSpec
		want string
	}{
		"OpenMPI explicit CPUs out of order": {descending, "ascending"},
		"IMB size not a power of two":        {imbOdd, "IMB takes powers of two (-msglog), not 1000"},
		"unknown MPI":                        {unknown, `unknown MPI implementation "LAM"`},
	} {
		if _, err := BuildLaunch(tc.spec, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}

// probeLine is what testdata/probe.c prints for each rank.
var probeLine = regexp.MustCompile(`(?m)^probe rank=(\d+) size=(\d+) cpus=([0-9,]+) env=(\S+) args=(\d+)$`)

// runProbe compiles the probe with mpicc, installs it as the OSU binary the
// step names, and runs the step's real argv with mpirun replaced by the given one.
func runProbe(t *testing.T, mpicc, mpirun string, l *Launch, env []string) map[string][]string {
	t.Helper()
	for _, tool := range []string{mpicc, mpirun} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed; CI installs it (.ci/run)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	bin := t.TempDir()
	if out, err := exec.Command(mpicc, "-O2", "-o", filepath.Join(bin, "osu_latency"), filepath.Join("testdata", "probe.c")).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", mpicc, err, out)
	}
	argv := l.Steps[0].Argv
	cmd := exec.Command(mpirun, argv[1:]...)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		// The tests may run as root, which OpenMPI refuses unless told.
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", mpirun, argv[1:], err, out)
	}
	t.Logf("%s %s:\n%s", mpirun, strings.Join(argv[1:], " "), out)
	ranks := map[string][]string{}
	for _, m := range probeLine.FindAllStringSubmatch(string(out), -1) {
		ranks[m[1]] = m[2:]
	}
	return ranks
}

// The OpenMPI command line, run by Debian's OpenMPI: two ranks, each bound to
// its CPU, the environment passed with -x, the benchmark's arguments intact.
func TestOpenMPICommandRunsForReal(t *testing.T) {
	spec := osuSpec(benchv1.OpenMPI, 1, 2, &benchv1.CPUBinding{Policy: benchv1.BindExplicit, CPUs: []int32{0, 1}})
	spec.MPI.Env = []benchv1.EnvVar{{Name: "BENCHWRIGHT_PROBE", Value: "from-x"}}
	l, err := BuildLaunch(spec, Options{Local: true})
	if err != nil {
		t.Fatal(err)
	}
	ranks := runProbe(t, "mpicc.openmpi", "mpirun.openmpi", l, nil)
	want := map[string][]string{"0": {"2", "0", "from-x", "6"}, "1": {"2", "1", "from-x", "6"}}
	if diff := cmp.Diff(want, ranks); diff != "" {
		t.Errorf("ranks (-want +got):\n%s", diff)
	}
}

// The MPICH command line, run by Debian's MPICH: ranks bound in the listed
// order (rank 0 on CPU 1), the environment forwarded from the launcher by name.
func TestMPICHCommandRunsForReal(t *testing.T) {
	spec := osuSpec(benchv1.MPICH, 1, 2, &benchv1.CPUBinding{Policy: benchv1.BindExplicit, CPUs: []int32{1, 0}})
	spec.MPI.Env = []benchv1.EnvVar{{Name: "BENCHWRIGHT_PROBE", Value: "from-envlist"}}
	l, err := BuildLaunch(spec, Options{Local: true})
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, e := range l.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	ranks := runProbe(t, "mpicc.mpich", "mpirun.mpich", l, env)
	want := map[string][]string{"0": {"2", "1", "from-envlist", "6"}, "1": {"2", "0", "from-envlist", "6"}}
	if diff := cmp.Diff(want, ranks); diff != "" {
		t.Errorf("ranks (-want +got):\n%s", diff)
	}
}
