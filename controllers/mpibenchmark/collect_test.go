package mpibenchmark

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/mpi/imb"
	"github.com/benchwright/benchwright/internal/mpi/osu"
	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
	"github.com/benchwright/benchwright/test/wrappers"
)

// stepLog builds a launcher log as `benchwright steps` prints it.
type stepLog struct {
	b     strings.Builder
	total int
}

func newStepLog(total int, preamble string) *stepLog {
	l := &stepLog{total: total}
	l.b.WriteString(preamble)
	return l
}

// step adds step i with its output and, unless code is nil, its trailer.
func (l *stepLog) step(i int, argv []string, output []byte, code *int) *stepLog {
	l.b.WriteString(mpi.StepHeader(i, l.total, argv))
	l.b.Write(output)
	if code != nil {
		l.b.WriteString(mpi.StepTrailer(i, l.total, *code, 23456*time.Millisecond))
	}
	return l
}

func (l *stepLog) bytes() []byte { return []byte(l.b.String()) }

func exit(code int) *int { return &code }

// mustParse is what the suite's parser makes of a fixture, kept to tests.
func mustParse(t *testing.T, parse func([]byte) ([]results.Sample, error), data []byte, tests ...string) []results.Sample {
	t.Helper()
	samples, err := parse(data)
	if err != nil {
		t.Fatalf("parsing the fixture: %v", err)
	}
	var out []results.Sample
	for _, s := range samples {
		if slices.Contains(tests, s.Test) {
			out = append(out, s)
		}
	}
	return out
}

func TestParseLauncherLog(t *testing.T) {
	latency := fixtures.Read(t, "osu/osu_latency_v5.8_gke_flux.txt")
	bw := fixtures.Read(t, "osu/osu_bw_v5.8_azure_aks.txt")
	two := latBench().Tests("osu_latency", "osu_bw").Obj()
	twoLaunch := mustLaunch(t, two)
	one := latBench().Obj()
	oneLaunch := mustLaunch(t, one)
	argvLat, argvBW := twoLaunch.Steps[0].Argv, twoLaunch.Steps[1].Argv
	header := "mpirun -np 2 --map-by ppr:1:node --bind-to core --report-bindings --mca btl_vader_single_copy_mechanism none osu_latency"
	if got := mpi.FormatArgv(argvLat); got != header {
		t.Fatalf("argv of the first step is %q, the tests below expect %q", got, header)
	}
	preamble := "Warning: Permanently added 'lat-r0-worker-0.lat-r0.hpc.svc' (ED25519) to the list of known hosts.\n"
	killed := []byte("[lat-r0-worker-1:00042] *** Process received signal ***\n" +
		"mpirun noticed that process rank 1 with PID 42 on node lat-r0-worker-1 exited on signal 9 (Killed).\n")
	cut := []byte(strings.Join(strings.SplitAfter(string(latency), "\n")[:6], ""))

	tests := []struct {
		name   string
		bench  *benchv1.MPIBenchmark
		launch *mpi.Launch
		log    []byte
		want   []results.Sample
		// wantErr is the Outcome, when the log is not a result.
		wantErr *outcome.Outcome
	}{
		{
			name:   "one step, the container's own messages before it",
			bench:  one,
			launch: oneLaunch,
			log:    newStepLog(1, preamble).step(1, argvLat, latency, exit(0)).bytes(),
			want:   mustParse(t, osu.Parse, latency, "osu_latency"),
		},
		{
			name:   "two steps, one per test",
			bench:  two,
			launch: twoLaunch,
			log:    newStepLog(2, preamble).step(1, argvLat, latency, exit(0)).step(2, argvBW, bw, exit(0)).bytes(),
			want:   append(mustParse(t, osu.Parse, latency, "osu_latency"), mustParse(t, osu.Parse, bw, "osu_bw")...),
		},
		{
			name:   "a step exited non-zero: the tool failed, quoting the step",
			bench:  two,
			launch: twoLaunch,
			log:    newStepLog(2, preamble).step(1, argvLat, killed, exit(137)).bytes(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonToolFailed, Message: "step 1 (" + header + ") exited with code 137; it said:\n" +
				"mpirun noticed that process rank 1 with PID 42 on node lat-r0-worker-1 exited on signal 9 (Killed)."},
		},
		{
			name:   "the second step failed after the first succeeded",
			bench:  two,
			launch: twoLaunch,
			log: newStepLog(2, "").step(1, argvLat, latency, exit(0)).
				step(2, argvBW, []byte("benchwright: step 2/2: osu_bw not found: it is not installed or not on PATH\n"), exit(127)).bytes(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonToolFailed, Message: "step 2 (" + mpi.FormatArgv(argvBW) + ") exited with code 127; " +
				"osu_bw is not on PATH: an OSU 7.x build leaves its programs under " + mpi.OSUDirectories + "; install them on PATH; " +
				"last lines of the output:\nbenchwright: step 2/2: osu_bw not found: it is not installed or not on PATH"},
		},
		{
			name:   "an OSU too old for the command line",
			bench:  one,
			launch: oneLaunch,
			log:    newStepLog(1, "").step(1, argvLat, []byte("# OSU MPI Latency Test v5.3\nosu_latency: invalid option -- 'm'\n"), exit(1)).bytes(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonToolFailed, Message: "step 1 (" + header + ") exited with code 1; " +
				"osu_latency (v5.3) refused its option -m: this OSU is too old or not OSU; " + mpi.OSUNeeds + "; " +
				"last lines of the output:\n# OSU MPI Latency Test v5.3\nosu_latency: invalid option -- 'm'"},
		},
		{
			name:   "the image's MPI is not the spec's",
			bench:  one,
			launch: oneLaunch,
			log: []byte("benchwright steps: wrong MPI: this image's mpirun is MPICH (MPICH 4.0.2), but the MPIBenchmark's " +
				"mpi.implementation is OpenMPI: use an image built with OpenMPI, or set mpi.implementation: MPICH\n"),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonMPIMismatch, Message: "this image's mpirun is MPICH (MPICH 4.0.2), " +
				"but the MPIBenchmark's mpi.implementation is OpenMPI: use an image built with OpenMPI, or set mpi.implementation: MPICH"},
		},
		{
			name:   "the log ends inside a step",
			bench:  one,
			launch: oneLaunch,
			log:    newStepLog(1, preamble).step(1, argvLat, cut, nil).bytes(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonUnparsableOutput, Message: "the launcher's log ends inside step 1 (" + header + "): it was cut short\n" +
				"last lines of the output:\n" + strings.TrimRight(string(cut), "\n")},
		},
		{
			name:   "a step whose output the parser rejects",
			bench:  two,
			launch: twoLaunch,
			log:    newStepLog(2, "").step(1, argvLat, []byte("0 1.5\n"), exit(0)).bytes(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonUnparsableOutput, Message: "step 1 (" + header + "): not OSU micro-benchmarks output: " +
				"no \"# OSU ...\" header line (the output starts with \"0 1.5\")\nlast lines of the output:\n0 1.5"},
		},
		{
			name:   "all steps printed succeeded, but not all steps ran",
			bench:  two,
			launch: twoLaunch,
			log:    newStepLog(2, "").step(1, argvLat, latency, exit(0)).bytes(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonUnparsableOutput, Message: "the launcher's log has 1 of its 2 steps: it was cut short\n" +
				podlogs.Tail(newStepLog(2, "").step(1, argvLat, latency, exit(0)).bytes())},
		},
		{
			name:   "more steps than the launch had",
			bench:  one,
			launch: oneLaunch,
			log:    newStepLog(2, "").step(1, argvLat, latency, exit(0)).step(2, argvBW, bw, exit(0)).bytes(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonUnparsableOutput,
				Message: "the launcher's log has more steps than the 1 it was given"},
		},
		{
			name:   "a test without figures is named",
			bench:  one,
			launch: oneLaunch,
			log:    newStepLog(1, "").step(1, argvLat, bw, exit(0)).bytes(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonUnparsableOutput, Message: "the output has no figures for test osu_latency\n" +
				podlogs.Tail(newStepLog(1, "").step(1, argvLat, bw, exit(0)).bytes())},
		},
		{
			name:   "not a step log",
			bench:  one,
			launch: oneLaunch,
			log:    latency,
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonUnparsableOutput, Message: "the launcher's log is not benchwright's step log " +
				"(no \"==> benchwright step\" header in the launcher log: the steps never started (the log starts with \"# OSU MPI Latency Test v5.8\"))\n" +
				podlogs.Tail(latency)},
		},
		{
			name:   "an empty log",
			bench:  one,
			launch: oneLaunch,
			log:    nil,
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonUnparsableOutput, Message: "the launcher's log is not benchwright's step log " +
				"(no \"==> benchwright step\" header in the launcher log: the steps never started (the log starts with \"\"))\n(the tool printed nothing)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLauncherLog(tt.bench, tt.launch, tt.log)
			if tt.wantErr != nil {
				var oe *outcome.Outcome
				if !errors.As(err, &oe) {
					t.Fatalf("error %v (%T), want an Outcome %s", err, err, tt.wantErr.Reason)
				}
				if diff := cmp.Diff(tt.wantErr, oe); diff != "" {
					t.Errorf("outcome (-want +got):\n%s", diff)
				}
				if got != nil {
					t.Errorf("samples %v with an outcome, want none", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseLauncherLog: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
		})
	}
}

// The figures of the real fixture, not just the parser's: 24 sizes of
// osu_latency, 0 to 4 MiB.
func TestParseLauncherLogOSUFigures(t *testing.T) {
	latency := fixtures.Read(t, "osu/osu_latency_v5.8_gke_flux.txt")
	b := latBench().Obj()
	l := mustLaunch(t, b)
	got, err := parseLauncherLog(b, l, newStepLog(1, "").step(1, l.Steps[0].Argv, latency, exit(0)).bytes())
	if err != nil {
		t.Fatalf("parseLauncherLog: %v", err)
	}
	type fig struct {
		Test, Metric, Unit, Size string
		Value                    float64
	}
	var figs []fig
	for _, s := range got {
		figs = append(figs, fig{s.Test, s.Metric, s.Unit, s.Labels[results.LabelMsgSize], s.Value})
	}
	if len(figs) != 24 {
		t.Fatalf("got %d samples, want 24", len(figs))
	}
	want := []fig{
		{"osu_latency", "latency", "us", "0", 32.29},
		{"osu_latency", "latency", "us", "8", 31.82},
		{"osu_latency", "latency", "us", "4194304", 2399.94},
	}
	if diff := cmp.Diff(want, []fig{figs[0], figs[4], figs[23]}); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
}

// IMB-MPI1 runs all benchmarks in one step and may print more than the spec
// asked for (a default run prints all of them): only the step's tests count.
func TestParseLauncherLogKeepsTheStepsTests(t *testing.T) {
	full := fixtures.Read(t, "imb/imb_mpi1_v4.1_full_2proc_aarch64.txt")
	b := latBench().Suite(benchv1.SuiteIMB).Tests("PingPong", "Allreduce").Obj()
	l := mustLaunch(t, b)
	if len(l.Steps) != 1 {
		t.Fatalf("IMB launch has %d steps, want 1", len(l.Steps))
	}
	got, err := parseLauncherLog(b, l, newStepLog(1, "").step(1, l.Steps[0].Argv, full, exit(0)).bytes())
	if err != nil {
		t.Fatalf("parseLauncherLog: %v", err)
	}
	var tests []string
	for _, s := range got {
		if !slices.Contains(tests, s.Test) {
			tests = append(tests, s.Test)
		}
	}
	if diff := cmp.Diff([]string{"PingPong", "Allreduce"}, tests); diff != "" {
		t.Errorf("tests of the samples (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(mustParse(t, imb.Parse, full, "PingPong", "Allreduce"), got); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
	// A spec test the output lacks is still an error.
	b.Spec.Tests = []string{"PingPong", "Biband"}
	l = mustLaunch(t, b)
	_, err = parseLauncherLog(b, l, newStepLog(1, "").step(1, l.Steps[0].Argv, full, exit(0)).bytes())
	var oe *outcome.Outcome
	if !errors.As(err, &oe) || oe.Reason != benchv1.ReasonUnparsableOutput || !strings.HasPrefix(oe.Message, "the output has no figures for test Biband\n") {
		t.Errorf("error %v, want UnparsableOutput naming test Biband", err)
	}
}

func TestLabelSamples(t *testing.T) {
	b := latBench().Label(benchv1.CampaignLabel, "q1").Tuning("hpc-net").WarmupRepetitions(1).Implementation(benchv1.OpenMPI).Obj()
	finished := time.Date(2025, 3, 4, 11, 0, 0, 0, time.UTC)
	printed := time.Date(2025, 3, 4, 10, 59, 0, 0, time.UTC)
	samples := []results.Sample{
		{Test: "osu_latency", Metric: "latency", Value: 2.1, Unit: "us", Labels: map[string]string{results.LabelMsgSize: "8"}},
		{Test: "osu_latency", Metric: "latency", Value: 2.2, Unit: "us", Timestamp: printed},
	}
	nodes := []results.NodeInfo{{Hostname: "gke-a", MachineType: "c2d-standard-112"}, {Hostname: "gke-b", MachineType: "c2d-standard-112"}}
	labelSamples(b, samples, nodes, 0, 1, finished)
	common := func(extra map[string]string) map[string]string {
		m := map[string]string{
			results.LabelMachineType: "c2d-standard-112", results.LabelMPI: "OpenMPI", results.LabelAttempt: "1",
			"layout": "2x1 core", results.LabelPool: "c2d", results.LabelTuning: "hpc-net", results.LabelCampaign: "q1",
			results.LabelWarmup: "true",
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	want := []results.Sample{
		{RunUID: "0b6f1c9e-uid", Kind: "MPIBenchmark", Namespace: "hpc", Benchmark: "lat", Test: "osu_latency", Metric: "latency", Value: 2.1, Unit: "us",
			Timestamp: finished, Labels: common(map[string]string{results.LabelMsgSize: "8"})},
		{RunUID: "0b6f1c9e-uid", Kind: "MPIBenchmark", Namespace: "hpc", Benchmark: "lat", Test: "osu_latency", Metric: "latency", Value: 2.2, Unit: "us",
			Timestamp: printed, Labels: common(nil)},
	}
	if diff := cmp.Diff(want, samples); diff != "" {
		t.Errorf("labelSamples (-want +got):\n%s", diff)
	}
}

func TestWorkerNodes(t *testing.T) {
	pods := []*corev1.Pod{
		pod("lat-r0-worker-1", roleWorker, corev1.PodRunning).NodeName("gke-b").Obj(),
		pod("lat-r0-launcher-x", roleLauncher, corev1.PodSucceeded).NodeName("gke-c").Obj(),
		pod("lat-r0-worker-0", roleWorker, corev1.PodRunning).NodeName("gke-a").Obj(),
		pod("lat-r0-worker-2", roleWorker, corev1.PodRunning).NodeName("gke-a").Obj(),
		pod("lat-r0-worker-3", roleWorker, corev1.PodPending).Obj(),
		wrappers.MakePod("x", "").NodeName("gke-d").Obj(),
	}
	if diff := cmp.Diff([]string{"gke-a", "gke-b"}, workerNodes(pods, nil)); diff != "" {
		t.Errorf("workerNodes (-want +got):\n%s", diff)
	}
	// Workers the MPI Operator deleted are known by their kept facts.
	kept := map[string]nodefacts.Facts{"gke-e": {}, "gke-a": {}}
	if diff := cmp.Diff([]string{"gke-a", "gke-b", "gke-e"}, workerNodes(pods, kept)); diff != "" {
		t.Errorf("workerNodes with kept facts (-want +got):\n%s", diff)
	}
}
