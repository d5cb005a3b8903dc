package local

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

// osuBench is the quickstart's shape: osu_latency and osu_bw on-node.
func osuBench(tests ...string) *benchv1.MPIBenchmark {
	return &benchv1.MPIBenchmark{
		ObjectMeta: metav1.ObjectMeta{Name: "osu", Labels: map[string]string{benchv1.CampaignLabel: "test"}},
		Spec: benchv1.MPIBenchmarkSpec{
			RepetitionPolicy: benchv1.RepetitionPolicy{Repetitions: 3, WarmupRepetitions: 1},
			Suite:            benchv1.SuiteOSU, Tests: tests,
			Layout:       benchv1.MPILayout{Nodes: 1, RanksPerNode: 2, CPUBinding: &benchv1.CPUBinding{Policy: benchv1.BindNone}},
			MPI:          benchv1.MPISettings{Implementation: benchv1.OpenMPI},
			MessageSizes: &benchv1.MessageSizes{Min: 1, Max: 1048576}, Iterations: ptr.To[int32](1000),
		},
	}
}

// emptyPath makes PATH a directory holding only the given scripts.
func emptyPath(t *testing.T, scripts ...string) string {
	dir := t.TempDir()
	for _, s := range scripts {
		if err := os.WriteFile(filepath.Join(dir, s), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

func TestRunMPINamesMissingPrograms(t *testing.T) {
	imb := osuBench("PingPong", "Allreduce")
	imb.Spec.Suite, imb.Spec.MessageSizes = benchv1.SuiteIMB, &benchv1.MessageSizes{Max: 1024}
	ior := osuBench("write", "read")
	ior.Spec.Suite, ior.Spec.MessageSizes, ior.Spec.IOR = benchv1.SuiteIOR, nil, &benchv1.IORSettings{}
	for _, tc := range []struct {
		name     string
		bench    *benchv1.MPIBenchmark
		onPath   []string
		mpirun   string
		programs []string
		want     []string
	}{
		{"nothing installed", osuBench("osu_latency", "osu_bw"), nil, "",
			[]string{"mpirun", "osu_latency", "osu_bw"},
			[]string{"mpirun: an MPI's mpirun: sudo apt-get install openmpi-bin (Open MPI) or mpich (MPICH)",
				"osu_latency, osu_bw: the OSU micro-benchmarks (5.4 or later; 7.x recommended), https://mvapich.cse.ohio-state.edu/benchmarks/", "c/mpi/pt2pt/standard", "c/mpi/collective/blocking"}},
		{"the chosen mpirun is missing", osuBench("osu_latency"), []string{"mpirun", "osu_latency"}, "mpirun.mpich",
			[]string{"mpirun.mpich"}, []string{"mpirun.mpich: an MPI's mpirun", "--mpirun"}},
		{"IMB-MPI1", imb, []string{"mpirun"}, "",
			[]string{"IMB-MPI1"}, []string{"IMB-MPI1: the Intel MPI Benchmarks, https://github.com/intel/mpi-benchmarks"}},
		{"ior", ior, []string{"mpirun"}, "",
			[]string{"ior"}, []string{"ior: IOR, https://github.com/hpc/ior"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emptyPath(t, tc.onPath...)
			dir := t.TempDir()
			_, err := RunMPI(context.Background(), tc.bench, MPIOptions{Options: Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "r")}, MPIRun: tc.mpirun})
			var missing *MissingProgramsError
			if !errors.As(err, &missing) {
				t.Fatalf("got %v, want a MissingProgramsError", err)
			}
			if diff := cmp.Diff(tc.programs, missing.Programs); diff != "" {
				t.Errorf("programs (-want +got):\n%s", diff)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q:\n%s", w, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "r")); err == nil {
				t.Error("results directory created for a run that could not start")
			}
		})
	}
}

func TestRunMPIRejectsAnotherMPIsMPIRun(t *testing.T) {
	needTool(t, "mpirun.mpich")
	mpich, err := exec.LookPath("mpirun.mpich")
	if err != nil {
		t.Fatal(err)
	}
	emptyPath(t, "osu_latency")
	t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+filepath.Dir(mpich))
	dir := t.TempDir()
	_, err = RunMPI(context.Background(), osuBench("osu_latency"), MPIOptions{Options: Options{ResultsDir: dir}, MPIRun: "mpirun.mpich"})
	if err == nil || !strings.Contains(err.Error(), "mpi.implementation is OpenMPI, but mpirun.mpich is MPICH") ||
		!strings.Contains(err.Error(), "--mpirun mpirun.openmpi") {
		t.Fatalf("got %v, want the MPI mismatch named", err)
	}
}

// standIn compiles testdata/osu_standin.c with Open MPI's mpicc and installs
// it as each OSU program, printing the given fixture; it returns the PATH
// directory.
func standIn(t *testing.T, fixtures map[string]string) {
	t.Helper()
	needTool(t, "mpicc.openmpi")
	needTool(t, "mpirun.openmpi")
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	bin := t.TempDir()
	first := ""
	for program, fixture := range fixtures {
		path := filepath.Join(bin, program)
		if first == "" {
			if out, err := exec.Command("mpicc.openmpi", "-O2", "-o", path, filepath.Join("testdata", "osu_standin.c")).CombinedOutput(); err != nil {
				t.Fatalf("mpicc.openmpi: %v\n%s", err, out)
			}
			first = path
		} else if err := os.Link(first, path); err != nil {
			t.Fatal(err)
		}
		if fixture != "" {
			t.Setenv("BENCHWRIGHT_STANDIN_"+program, fixture)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestRunMPIWithStandIn runs the whole local path for real: Open MPI's
// mpirun starting 2 ranks of a stand-in that prints real OSU output, the step
// runner, the OSU parser, statistics over repetitions and the result files.
func TestRunMPIWithStandIn(t *testing.T) {
	outputs := map[string]string{
		"osu_latency": fixtures.Path(t, "osu", "osu_latency_v5.8_gke_flux.txt"),
		"osu_bw":      fixtures.Path(t, "osu", "osu_bw_v5.8_azure_aks.txt"),
	}
	standIn(t, outputs)
	want := map[string]float64{} // test/metric/size -> the figure the fixture holds
	for test, path := range outputs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		samples, err := mpi.ParseOSU(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			if s.Test != test {
				t.Fatalf("fixture %s holds %s", path, s.Test)
			}
			want[s.Test+"/"+s.Metric+"/"+s.Labels[results.LabelMsgSize]] = s.Value
		}
	}

	dir := t.TempDir()
	var progress bytes.Buffer
	res, err := RunMPI(context.Background(), osuBench("osu_latency", "osu_bw"), MPIOptions{
		Options: Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results"), Progress: &progress}, MPIRun: "mpirun.openmpi"})
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	t.Logf("progress:\n%s", progress.String())

	if got := len(res.Samples); got != 3*len(want) {
		t.Errorf("%d samples, want %d (3 repetitions of %d figures)", got, 3*len(want), len(want))
	}
	for _, s := range res.Samples {
		key := s.Test + "/" + s.Metric + "/" + s.Labels[results.LabelMsgSize]
		if v, ok := want[key]; !ok || v != s.Value {
			t.Errorf("rep %d %s = %v, the fixture has %v (present %v)", s.Repetition, key, s.Value, v, ok)
		}
		l := s.Labels
		if s.Kind != "MPIBenchmark" || s.Benchmark != "osu" || s.RunUID != res.RunUID || l[results.LabelMPI] != "OpenMPI" ||
			l[results.LabelMachineType] != "local" || l[results.LabelCampaign] != "test" || l[results.LabelNode] == "" {
			t.Fatalf("sample not labelled: %+v", s)
		}
		if (s.Repetition == 0) != (l[results.LabelWarmup] == "true") {
			t.Errorf("rep %d warmup label = %q", s.Repetition, l[results.LabelWarmup])
		}
	}
	if len(res.Summaries) != len(want) {
		t.Errorf("%d summaries, want one per test, metric and size: %d", len(res.Summaries), len(want))
	}
	for _, s := range res.Summaries {
		key := s.Test + "/" + s.Metric + "/" + s.Labels[results.LabelMsgSize]
		if s.Stats.N != 2 || s.Stats.Median != want[key] || s.Stats.Min != want[key] || s.Stats.Max != want[key] || s.Stats.CV != 0 {
			t.Errorf("%s: %+v, want the fixture's %v twice, CV 0", key, s.Stats, want[key])
		}
	}

	for _, f := range []string{"samples.ndjson", "samples.csv", "summary.json", "nodes.json"} {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
			t.Errorf("missing result file: %v", err)
		}
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary results.RunSummary
	if err := json.Unmarshal(data, &summary); err != nil || summary.Kind != "MPIBenchmark" || len(summary.Summaries) != len(want) {
		t.Errorf("summary.json: %v, %+v", err, summary)
	}
	for rep := range 3 {
		log, err := os.ReadFile(filepath.Join(res.Dir, "raw", strconv.Itoa(rep), "launcher.log"))
		if err != nil {
			t.Fatal(err)
		}
		steps, err := mpi.SplitSteps(log)
		if err != nil || len(steps) != 2 || steps[0].ExitCode != 0 || steps[1].ExitCode != 0 ||
			!strings.Contains(steps[1].Argv, "osu_bw -m 1:1048576 -i 1000") {
			t.Errorf("raw/%d/launcher.log: %v\n%s", rep, err, log)
		}
	}

	var table bytes.Buffer
	if err := PrintMPITable(&table, benchv1.SuiteOSU, res.Summaries); err != nil {
		t.Fatal(err)
	}
	t.Logf("table:\n%s", table.String())
	lines := strings.Split(strings.TrimSpace(table.String()), "\n")
	if len(lines) != 1+len(want) || !strings.Contains(table.String(), "osu_latency  latency") ||
		!regexpMatch(`osu_bw +bandwidth +1048576 +24,249 +24,249 +24,249 +0\.0% +MB/s`, table.String()) {
		t.Errorf("table:\n%s", table.String())
	}
	for _, w := range []string{"all 2 ranks run on this machine", "mpirun.openmpi (Open MPI ", "repetition 1/3 (warm-up, not counted)",
		"step 2/2: mpirun.openmpi -np 2", "step 2/2 exited with code 0 after"} {
		if !strings.Contains(progress.String(), w) {
			t.Errorf("progress lacks %q:\n%s", w, progress.String())
		}
	}
}

// A failing step is reported with its last lines; the run stops there.
func TestRunMPIReportsFailedStep(t *testing.T) {
	standIn(t, map[string]string{
		"osu_latency": fixtures.Path(t, "osu", "osu_latency_v5.8_gke_flux.txt"),
		"osu_bw":      "", // not set: the stand-in aborts
	})
	dir := t.TempDir()
	res, err := RunMPI(context.Background(), osuBench("osu_latency", "osu_bw"), MPIOptions{
		Options: Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results")}, MPIRun: "mpirun.openmpi"})
	if err == nil || !strings.Contains(err.Error(), "repetition 1: step 2/2 (osu_bw) exited with code") ||
		!strings.Contains(err.Error(), "osu_standin: BENCHWRIGHT_STANDIN_osu_bw: not set") {
		t.Fatalf("got %v, want step 2's failure with the stand-in's message", err)
	}
	if len(res.Samples) != 0 {
		t.Errorf("samples kept from a failed repetition: %d", len(res.Samples))
	}
}

// A step whose output has no figure of its test is an error, not an empty result.
func TestRunMPIRejectsOutputOfAnotherTest(t *testing.T) {
	standIn(t, map[string]string{"osu_latency": fixtures.Path(t, "osu", "osu_bw_v5.8_azure_aks.txt")})
	dir := t.TempDir()
	_, err := RunMPI(context.Background(), osuBench("osu_latency"), MPIOptions{
		Options: Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results")}, MPIRun: "mpirun.openmpi"})
	if err == nil || !strings.Contains(err.Error(), "step 1/1 (osu_latency) printed no figures of osu_latency") {
		t.Fatalf("got %v", err)
	}
}

func TestRunMPIRejectsWarmupOnly(t *testing.T) {
	b := osuBench("osu_latency")
	b.Spec.WarmupRepetitions = 3
	if _, err := RunMPI(context.Background(), b, MPIOptions{}); err == nil || !strings.Contains(err.Error(), "warmupRepetitions (3) must be smaller than repetitions (3)") {
		t.Fatalf("got %v", err)
	}
}

func TestPrintMPITableShowsMainMetric(t *testing.T) {
	sum := func(test, metric, size string, v float64) results.Summary {
		s := results.Summary{Test: test, Metric: metric, Unit: "us", Stats: results.Stats{N: 2, Median: v, Min: v, Max: v}}
		if size != "" {
			s.Labels = map[string]string{results.LabelMsgSize: size}
		}
		return s
	}
	var b bytes.Buffer
	err := PrintMPITable(&b, benchv1.SuiteIMB, []results.Summary{
		sum("PingPong", "latency", "8", 1.5), sum("PingPong", "bandwidth", "8", 5.3),
		sum("Uniband", "bandwidth", "8", 9), sum("Uniband", "message_rate", "8", 1e6),
		sum("Barrier", "latency", "", 3),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "TEST      METRIC     MSG_SIZE  MEDIAN    MIN    MAX    CV  UNIT\n" +
		"PingPong  latency           8   1.500  1.500  1.500  0.0%  us\n" +
		"Uniband   bandwidth         8   9.000  9.000  9.000  0.0%  us\n" +
		"Barrier   latency           -   3.000  3.000  3.000  0.0%  us\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
