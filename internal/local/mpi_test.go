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

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/mpi/osu"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
	"github.com/benchwright/benchwright/test/wrappers"
)

// onNode is the quickstart's layout: two unbound Open MPI ranks on one
// node, 3 repetitions of which 1 warms up.
func onNode(name string, tests ...string) *wrappers.MPIBenchmarkWrapper {
	return wrappers.MakeMPIBenchmark(name, "").Label(benchv1.CampaignLabel, "test").Repetitions(3).WarmupRepetitions(1).
		Tests(tests...).Layout(1, 2).CPUBinding(benchv1.BindNone).Implementation(benchv1.OpenMPI)
}

// quickstartOSU is the quickstart's shape: osu_latency and osu_bw on-node.
func quickstartOSU(tests ...string) *wrappers.MPIBenchmarkWrapper {
	return onNode("osu", tests...).MessageSizes(1, 1048576).Iterations(1000)
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
	imb := quickstartOSU("PingPong", "Allreduce").Suite(benchv1.SuiteIMB).MessageSizes(0, 1024).Obj()
	ior := quickstartOSU("write", "read").IOR(benchv1.IORSettings{}).Obj()
	for _, tc := range []struct {
		name     string
		bench    *benchv1.MPIBenchmark
		onPath   []string
		mpirun   string
		programs []string
		want     []string
	}{
		{"nothing installed", quickstartOSU("osu_latency", "osu_bw").Obj(), nil, "",
			[]string{"mpirun", "osu_latency", "osu_bw"},
			[]string{"mpirun: an MPI's mpirun: sudo apt-get install openmpi-bin (Open MPI) or mpich (MPICH)",
				"osu_latency, osu_bw: the OSU micro-benchmarks (5.4 or later; 7.x recommended), https://mvapich.cse.ohio-state.edu/benchmarks/", "c/mpi/pt2pt/standard", "c/mpi/collective/blocking"}},
		{"the chosen mpirun is missing", quickstartOSU("osu_latency").Obj(), []string{"mpirun", "osu_latency"}, "mpirun.mpich",
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
	_, err = RunMPI(context.Background(), quickstartOSU("osu_latency").Obj(), MPIOptions{Options: Options{ResultsDir: dir}, MPIRun: "mpirun.mpich"})
	if err == nil || !strings.Contains(err.Error(), "mpi.implementation is OpenMPI, but mpirun.mpich is MPICH") ||
		!strings.Contains(err.Error(), "--mpirun mpirun.openmpi") {
		t.Fatalf("got %v, want the MPI mismatch named", err)
	}
}

// realTools puts the real OSU, IMB and IOR built with mpi's compiler
// (hack/bench-tools.sh, from ../shared/src) first on PATH and returns their
// directory.
func realTools(t *testing.T, mpi string) string {
	t.Helper()
	needTool(t, "mpirun."+mpi)
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	dir := util.BenchTools(t, mpi)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// TestRunMPIWithRealOSU runs the whole local path for real, with each MPI:
// its mpirun starting 2 ranks of the real OSU 7.4, the step runner, the OSU
// parser, statistics over repetitions and the result files. Every figure of
// the results is the one the raw launcher log holds.
func TestRunMPIWithRealOSU(t *testing.T) {
	for _, impl := range []benchv1.MPIImplementation{benchv1.OpenMPI, benchv1.MPICH} {
		t.Run(string(impl), func(t *testing.T) {
			mpiName := map[benchv1.MPIImplementation]string{benchv1.OpenMPI: "openmpi", benchv1.MPICH: "mpich"}[impl]
			realTools(t, mpiName)
			b := quickstartOSU("osu_latency", "osu_bw").Implementation(impl).MessageSizes(1, 65536).Iterations(200).WarmupIterations(20).Obj()
			dir := t.TempDir()
			var progress bytes.Buffer
			res, err := RunMPI(context.Background(), b, MPIOptions{
				Options: Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results"), Progress: &progress}, MPIRun: "mpirun." + mpiName})
			if err != nil {
				t.Fatalf("%v\nprogress:\n%s", err, progress.String())
			}
			t.Logf("progress:\n%s", progress.String())
			checkRealOSU(t, res, impl)

			var table bytes.Buffer
			if err := PrintMPITable(&table, benchv1.SuiteOSU, res.Summaries); err != nil {
				t.Fatal(err)
			}
			t.Logf("table:\n%s", table.String())
			// 17 sizes (1 to 64 KiB) of osu_latency's latency and osu_bw's bandwidth.
			if lines := strings.Split(strings.TrimSpace(table.String()), "\n"); len(lines) != 1+2*17 ||
				!regexpMatch(`osu_latency +latency +8 +[0-9.]+ `, table.String()) || !regexpMatch(`osu_bw +bandwidth +65536 +[0-9,.]+ `, table.String()) {
				t.Errorf("table:\n%s", table.String())
			}
			for _, w := range []string{"all 2 ranks run on this machine", "mpirun." + mpiName + " (" + map[benchv1.MPIImplementation]string{benchv1.OpenMPI: "Open MPI ", benchv1.MPICH: "MPICH "}[impl],
				"repetition 1/3 (warm-up, not counted)", "step 2/2: mpirun." + mpiName, "osu_bw -m 1:65536 -i 200 -x 20", "step 2/2 exited with code 0 after"} {
				if !strings.Contains(progress.String(), w) {
					t.Errorf("progress lacks %q:\n%s", w, progress.String())
				}
			}
		})
	}
}

// checkRealOSU checks a run of osu_latency and osu_bw over 1..64 KiB, 3
// repetitions (the first a warm-up): the samples are labelled, every figure
// is the one of its repetition's raw log, and the summaries are of the 2
// counted repetitions.
func checkRealOSU(t *testing.T, res *Result, impl benchv1.MPIImplementation) {
	t.Helper()
	logged := map[string]float64{} // rep/test/metric/size -> the figure in raw/<rep>/launcher.log
	for rep := range 3 {
		log, err := os.ReadFile(filepath.Join(res.Dir, "raw", strconv.Itoa(rep), "launcher.log"))
		if err != nil {
			t.Fatal(err)
		}
		steps, err := mpi.SplitSteps(log)
		if err != nil || len(steps) != 2 || steps[0].ExitCode != 0 || steps[1].ExitCode != 0 {
			t.Fatalf("raw/%d/launcher.log: %v\n%s", rep, err, log)
		}
		for _, st := range steps {
			samples, err := osu.Parse(st.Output)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range samples {
				logged[strconv.Itoa(rep)+"/"+s.Test+"/"+s.Metric+"/"+s.Labels[results.LabelMsgSize]] = s.Value
			}
		}
	}
	if got := len(res.Samples); got != 3*2*17 {
		t.Errorf("%d samples, want %d (3 repetitions of 17 sizes of 2 tests)", got, 3*2*17)
	}
	for _, s := range res.Samples {
		key := strconv.Itoa(s.Repetition) + "/" + s.Test + "/" + s.Metric + "/" + s.Labels[results.LabelMsgSize]
		// osu_bw prints 0.00 below 0.005 MB/s: a 1-byte message on a
		// loaded machine (two unbound MPICH ranks waiting for one core) can.
		if v, ok := logged[key]; !ok || v != s.Value || v < 0 || v == 0 && s.Metric != "bandwidth" {
			t.Errorf("%s = %v, the raw log has %v (present %v)", key, s.Value, v, ok)
		}
		if s.Metric == "bandwidth" && s.Labels[results.LabelMsgSize] == "65536" && s.Value <= 0 {
			t.Errorf("%s = %v: no bandwidth at 64 KiB", key, s.Value)
		}
		l := s.Labels
		if s.Kind != "MPIBenchmark" || s.Benchmark != "osu" || s.RunUID != res.RunUID || l[results.LabelMPI] != string(impl) ||
			l[results.LabelToolVersion] != "7.4" || l[results.LabelMachineType] != "local" || l[results.LabelCampaign] != "test" || l[results.LabelNode] == "" {
			t.Fatalf("sample not labelled: %+v", s)
		}
		if (s.Repetition == 0) != (l[results.LabelWarmup] == "true") {
			t.Errorf("rep %d warmup label = %q", s.Repetition, l[results.LabelWarmup])
		}
	}
	if len(res.Summaries) != 2*17 {
		t.Errorf("%d summaries, want one per test, metric and size: %d", len(res.Summaries), 2*17)
	}
	for _, s := range res.Summaries {
		size := s.Labels[results.LabelMsgSize]
		a, b := logged["1/"+s.Test+"/"+s.Metric+"/"+size], logged["2/"+s.Test+"/"+s.Metric+"/"+size]
		if s.Stats.N != 2 || s.Stats.Min != min(a, b) || s.Stats.Max != max(a, b) {
			t.Errorf("%s %s %s: %+v, want the counted repetitions' %v and %v", s.Test, s.Metric, size, s.Stats, a, b)
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
	if err := json.Unmarshal(data, &summary); err != nil || summary.Kind != "MPIBenchmark" || len(summary.Summaries) != 2*17 {
		t.Errorf("summary.json: %v, %+v", err, summary)
	}
}

// TestRunMPIWithRealIMBAndIOR runs IMB-MPI1 (PingPong, Allreduce) and IOR
// (write and read, a file per process) for real with Open MPI.
func TestRunMPIWithRealIMBAndIOR(t *testing.T) {
	realTools(t, "openmpi")
	imb := onNode("imb", "PingPong", "Allreduce").Suite(benchv1.SuiteIMB).Repetitions(2).MessageSizes(0, 1024).Iterations(100).Obj()
	ior := onNode("ior", "write", "read").Repetitions(2).IOR(benchv1.IORSettings{TransferSize: "1m", BlockSize: "8m", FilePerProcess: true}).Obj()
	for _, tc := range []struct {
		bench *benchv1.MPIBenchmark
		// want are the test/metric pairs every counted repetition has.
		want    []string
		version string
	}{
		{imb, []string{"PingPong/latency", "PingPong/bandwidth", "Allreduce/latency"}, "2021.11"},
		{ior, []string{"write/bandwidth", "write/iops", "read/bandwidth", "read/latency"}, "4.0.0"},
	} {
		t.Run(tc.bench.Name, func(t *testing.T) {
			dir := t.TempDir()
			var progress bytes.Buffer
			res, err := RunMPI(context.Background(), tc.bench, MPIOptions{
				Options: Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results"), Progress: &progress}, MPIRun: "mpirun.openmpi"})
			if err != nil {
				t.Fatalf("%v\nprogress:\n%s", err, progress.String())
			}
			seen := map[string]bool{}
			for _, s := range res.Samples {
				if s.Repetition == 1 {
					seen[s.Test+"/"+s.Metric] = true
				}
				if s.Labels[results.LabelToolVersion] != tc.version || s.Value < 0 {
					t.Errorf("sample %+v", s)
				}
			}
			for _, w := range tc.want {
				if !seen[w] {
					t.Errorf("no %s in the counted repetition; samples: %v", w, seen)
				}
			}
			if len(res.Summaries) == 0 {
				t.Error("no summaries")
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "benchwright-") {
					t.Errorf("IOR's directory %s is left behind", e.Name())
				}
			}
		})
	}
}

// A failing step is reported with its last lines and what benchwright makes
// of them; the run stops there. The real osu_latency refuses an option.
func TestRunMPIReportsFailedStep(t *testing.T) {
	realTools(t, "openmpi")
	b := quickstartOSU("osu_latency", "osu_bw").ExtraArgs("-Z").Obj()
	dir := t.TempDir()
	res, err := RunMPI(context.Background(), b, MPIOptions{
		Options: Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results")}, MPIRun: "mpirun.openmpi"})
	if err == nil || !strings.Contains(err.Error(), "repetition 1: step 1/2 (osu_latency) exited with code") ||
		!strings.Contains(err.Error(), "osu_latency refused its option -Z: this OSU is too old or not OSU") {
		t.Fatalf("got %v, want step 1's failure with OSU's message and the hint", err)
	}
	if res != nil && len(res.Samples) != 0 {
		t.Errorf("samples kept from a failed repetition: %d", len(res.Samples))
	}
}

// A step whose output has no figure of its test is an error, not an empty
// result: here osu_latency is the real osu_bw.
func TestRunMPIRejectsOutputOfAnotherTest(t *testing.T) {
	tools := realTools(t, "openmpi")
	bin := t.TempDir()
	if err := os.Symlink(filepath.Join(tools, "osu_bw"), filepath.Join(bin, "osu_latency")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	b := quickstartOSU("osu_latency").MessageSizes(1, 64).Obj()
	dir := t.TempDir()
	_, err := RunMPI(context.Background(), b, MPIOptions{
		Options: Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results")}, MPIRun: "mpirun.openmpi"})
	if err == nil || !strings.Contains(err.Error(), "step 1/1 (osu_latency) printed no figures of osu_latency") {
		t.Fatalf("got %v", err)
	}
}

func TestRunMPIRejectsWarmupOnly(t *testing.T) {
	b := quickstartOSU("osu_latency").WarmupRepetitions(3).Obj()
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
	want := "TEST      METRIC     MSG_SIZE  MEDIAN    MIN    MAX    CV  N  UNIT\n" +
		"PingPong  latency           8   1.500  1.500  1.500  0.0%  2  µs\n" +
		"Uniband   bandwidth         8   9.000  9.000  9.000  0.0%  2  µs\n" +
		"Barrier   latency           -   3.000  3.000  3.000  0.0%  2  µs\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
