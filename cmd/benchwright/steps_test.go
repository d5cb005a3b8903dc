package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/test/util"
)

// launchFile writes a launch file with one step per argv.
func launchFile(t *testing.T, argvs ...[]string) string {
	t.Helper()
	l := mpi.Launch{}
	for _, a := range argvs {
		l.Steps = append(l.Steps, mpi.Step{Tests: []string{"t"}, Argv: a})
	}
	data, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "launch.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStepsCommandExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		argvs [][]string
		code  int
		out   []string // in order
	}{
		{"all succeed", [][]string{{"/bin/echo", "one"}, {"sh", "-c", "echo two >&2"}}, 0, []string{
			"==> benchwright step 1/2: /bin/echo one <==\none\n==> benchwright step 1/2 exited with code 0 after ",
			"==> benchwright step 2/2: sh -c \"echo two >&2\" <==\ntwo\n==> benchwright step 2/2 exited with code 0 after "}},
		{"stops at the first failure with its code", [][]string{{"/bin/echo", "one"}, {"sh", "-c", "exit 3"}, {"/bin/echo", "never"}}, 3, []string{
			"one\n", "==> benchwright step 2/3 exited with code 3 after "}},
		{"false", [][]string{{"/bin/false"}}, 1, []string{"==> benchwright step 1/1 exited with code 1 after "}},
		{"missing program", [][]string{{"osu_latency_not_installed", "-m", "1:8"}}, 127, []string{
			"benchwright: step 1/1: osu_latency_not_installed not found: it is not installed or not on PATH",
			"==> benchwright step 1/1 exited with code 127 after "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code, err := runStepsFile(context.Background(), launchFile(t, tc.argvs...), &stdout, &stderr, nil)
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			rest := stdout.String()
			for _, w := range tc.out {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("no %q (in order) in the output:\n%s", w, stdout.String())
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(stdout.String(), "never") {
				t.Errorf("a step after the failure ran:\n%s", stdout.String())
			}
		})
	}
}

func TestStepsCommandRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"not JSON":      "steps:\n- [mpirun]\n",
		"unknown field": `{"steps": [{"argv": ["a"]}], "shell": "bash"}`,
		"no steps":      `{"steps": []}`,
		"empty argv":    `{"steps": [{"tests": ["osu_bw"], "argv": []}]}`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		if _, err := runStepsFile(context.Background(), path, &stdout, &stdout, nil); err == nil || stdout.Len() != 0 {
			t.Errorf("%s: error %v, output %q; want an error and nothing run", name, err, stdout.String())
		}
	}
}

// lockedBuffer may be read while a step writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestStepsCommandForwardsSignals(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGTERM: 143, syscall.SIGINT: 130} {
		t.Run(sig.String(), func(t *testing.T) {
			script := `trap 'echo caught; exit 0' TERM INT; echo ready; while :; do sleep 0.05; done`
			file := launchFile(t, []string{"sh", "-c", script}, []string{"/bin/echo", "never"})
			sigs := make(chan os.Signal, 1)
			var stdout, stderr lockedBuffer
			codes := make(chan int)
			go func() {
				code, err := runStepsFile(context.Background(), file, &stdout, &stderr, sigs)
				if err != nil {
					t.Error(err)
				}
				codes <- code
			}()
			// "ready" on a line of its own: the header line quotes the script too.
			util.WaitFor(t, 10*time.Second, "the step to start", func() (bool, string) {
				o := stdout.String()
				return strings.Contains(o, "\nready\n"), "\n" + o
			})
			sigs <- sig
			if code := <-codes; code != want {
				t.Errorf("exit code %d, want %d", code, want)
			}
			if !strings.Contains(stdout.String(), "caught\n==> benchwright step 1/2 exited with code 0") || strings.Contains(stdout.String(), "never") {
				t.Errorf("stdout:\n%s", stdout.String())
			}
			if !strings.Contains(stderr.String(), "passed on to the running step; stopped after 1 of 2 step(s)") {
				t.Errorf("stderr: %q", stderr.String())
			}
		})
	}
}

// Debian's Open MPI runs two steps of 2 ranks each through the runner, and
// SplitSteps reads the log back.
func TestStepsCommandWithOpenMPI(t *testing.T) {
	if _, err := exec.LookPath("mpirun.openmpi"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("mpirun.openmpi is not installed; CI installs it")
		}
		t.Skip("mpirun.openmpi is not installed")
	}
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	file := launchFile(t,
		[]string{"mpirun.openmpi", "-np", "2", "--oversubscribe", "hostname"},
		[]string{"mpirun.openmpi", "-np", "2", "--oversubscribe", "sh", "-c", "echo rank $OMPI_COMM_WORLD_RANK"},
	)
	var stdout, stderr bytes.Buffer
	code, err := runStepsFile(context.Background(), file, &stdout, &stderr, nil)
	if err != nil || code != 0 {
		t.Fatalf("exit code %d, %v\n%s", code, err, stdout.String())
	}
	steps, err := mpi.SplitSteps(stdout.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(steps) != 2 || steps[0].ExitCode != 0 || steps[1].ExitCode != 0 {
		t.Fatalf("steps: %+v\n%s", steps, stdout.String())
	}
	if got := strings.Count(string(steps[0].Output), host+"\n"); got != 2 {
		t.Errorf("step 1 printed the host name %d times, want 2:\n%s", got, steps[0].Output)
	}
	for _, w := range []string{"rank 0\n", "rank 1\n"} {
		if !strings.Contains(string(steps[1].Output), w) {
			t.Errorf("step 2 lacks %q:\n%s", w, steps[1].Output)
		}
	}
	if steps[0].Argv != "mpirun.openmpi -np 2 --oversubscribe hostname" {
		t.Errorf("step 1 argv %q", steps[0].Argv)
	}
}

// The command is registered and exits 0 through cobra when all steps pass.
func TestStepsCommandThroughCobra(t *testing.T) {
	root := newRootCommand()
	var stdout bytes.Buffer
	root.SetOut(&stdout)
	root.SetArgs([]string{"steps", launchFile(t, []string{"/bin/echo", "via cobra"})})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "via cobra\n==> benchwright step 1/1 exited with code 0") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}

// A launch file naming OpenMPI, run where its mpirun is MPICH's (the real
// mpirun.mpich): no step runs, and the one line says which MPI this is.
func TestStepsCommandRefusesAnotherMPI(t *testing.T) {
	if _, err := exec.LookPath("mpirun.mpich"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("mpirun.mpich is not installed; CI installs it")
		}
		t.Skip("mpirun.mpich is not installed")
	}
	for _, tc := range []struct {
		mpi  string
		code int
	}{{"OpenMPI", exitWrongMPI}, {"MPICH", 0}} {
		t.Run(tc.mpi, func(t *testing.T) {
			l := mpi.Launch{MPI: benchv1.MPIImplementation(tc.mpi), Steps: []mpi.Step{{Tests: []string{"t"}, Argv: []string{"mpirun.mpich", "-np", "1", "true"}}}}
			data, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "launch.json")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code, err := runStepsFile(context.Background(), file, &stdout, &stderr, nil)
			if err != nil || code != tc.code {
				t.Fatalf("exit code %d, %v, want %d\n%s", code, err, tc.code, stdout.String())
			}
			if tc.code == 0 {
				return
			}
			msg, ok := mpi.MismatchIn(stdout.Bytes())
			want := "this image's mpirun.mpich is MPICH (MPICH 4.0.2), but the MPIBenchmark's mpi.implementation is OpenMPI: " +
				"use an image built with OpenMPI, or set mpi.implementation: MPICH"
			if !ok || msg != want || strings.Contains(stdout.String(), "==> benchwright step") {
				t.Errorf("output:\n%s\nwant only the line %q", stdout.String(), want)
			}
		})
	}
}
