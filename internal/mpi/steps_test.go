package mpi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/test/util"
)

func TestStepMarkers(t *testing.T) {
	argv := []string{"mpirun", "-np", "2", "-x", "A=b c", "osu_latency", "-m", "1:8", "", "x\ny"}
	if got, want := StepHeader(1, 2, argv), "==> benchwright step 1/2: mpirun -np 2 -x \"A=b c\" osu_latency -m 1:8 \"\" \"x\\ny\" <==\n"; got != want {
		t.Errorf("header\n got %q\nwant %q", got, want)
	}
	if got, want := StepTrailer(1, 2, 0, 12345678*time.Microsecond), "==> benchwright step 1/2 exited with code 0 after 12.346s <==\n"; got != want {
		t.Errorf("trailer\n got %q\nwant %q", got, want)
	}
}

// stepSummary is a StepLog with its output as a string, for cmp.
type stepSummary struct {
	Index, Total int
	Argv, Output string
	ExitCode     int
	Duration     time.Duration
}

func summarize(steps []StepLog) []stepSummary {
	var out []stepSummary
	for _, s := range steps {
		out = append(out, stepSummary{s.Index, s.Total, s.Argv, string(s.Output), s.ExitCode, s.Duration})
	}
	return out
}

func TestSplitSteps(t *testing.T) {
	h1 := StepHeader(1, 2, []string{"mpirun", "osu_latency"})
	t1 := StepTrailer(1, 2, 0, 1500*time.Millisecond)
	h2 := StepHeader(2, 2, []string{"mpirun", "osu_bw"})
	t2 := StepTrailer(2, 2, 0, 2*time.Second)
	for _, tc := range []struct {
		name string
		log  string
		want []stepSummary
	}{
		{"two steps, container preamble dropped",
			"Warning: Permanently added 'worker-0' to known hosts\n" + h1 + "# OSU MPI Latency Test v7.5\n0 1.5\n" + t1 + h2 + "bw\n" + t2,
			[]stepSummary{
				{1, 2, "mpirun osu_latency", "# OSU MPI Latency Test v7.5\n0 1.5\n", 0, 1500 * time.Millisecond},
				{2, 2, "mpirun osu_bw", "bw\n", 0, 2 * time.Second},
			}},
		{"failed first step: the runner stopped",
			h1 + "osu_latency: not found\n" + StepTrailer(1, 2, 127, 0),
			[]stepSummary{{1, 2, "mpirun osu_latency", "osu_latency: not found\n", 127, 0}}},
		{"truncated in the second step",
			h1 + t1 + h2 + "# OSU MPI Band",
			[]stepSummary{
				{1, 2, "mpirun osu_latency", "", 0, 1500 * time.Millisecond},
				{2, 2, "mpirun osu_bw", "# OSU MPI Band", -1, 0},
			}},
		{"truncated in a trailer",
			h1 + "0 1.5\n==> benchwright step 1/2 exited wi",
			[]stepSummary{{1, 2, "mpirun osu_latency", "0 1.5\n", -1, 0}}},
		{"truncated in the next header",
			h1 + t1 + "==> benchwright step 2/2: mpirun osu_",
			[]stepSummary{{1, 2, "mpirun osu_latency", "", 0, 1500 * time.Millisecond}}},
		{"CRLF line ends",
			strings.ReplaceAll(h1+"a\n"+t1, "\n", "\r\n"),
			[]stepSummary{{1, 2, "mpirun osu_latency", "a\r\n", 0, 1500 * time.Millisecond}}},
		{"text a tool prints that mentions a marker mid-line stays output",
			h1 + "echo ==> benchwright step 9/9: x <==\n" + t1,
			[]stepSummary{{1, 2, "mpirun osu_latency", "echo ==> benchwright step 9/9: x <==\n", 0, 1500 * time.Millisecond}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := SplitSteps([]byte(tc.log))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(steps)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitStepsRejects(t *testing.T) {
	h1 := StepHeader(1, 2, []string{"a"})
	t1 := StepTrailer(1, 2, 0, time.Second)
	for _, tc := range []struct{ name, log, want string }{
		{"empty", "", "no \"==> benchwright step\" header"},
		{"no header", "mpirun: command not found\n", `starts with "mpirun: command not found"`},
		{"garbage marker", h1 + "==> benchwright step one/two <==\n", `line 2: malformed step marker`},
		{"second step first", StepHeader(2, 2, []string{"a"}), "line 1: step 2/2 out of order: expected step 1"},
		{"total changes", h1 + t1 + StepHeader(2, 3, []string{"b"}), "line 3: step 2/3 out of order"},
		{"step repeated", h1 + t1 + h1, "line 3: step 1/2 out of order: expected step 2"},
		{"next step before the trailer", h1 + StepHeader(2, 2, []string{"b"}), "line 2: step 2/2 starts before step 1/2 ended"},
		{"trailer without header", t1, "line 1: end of step 1/2, which had not started"},
		// The launcher of a chatty step on a real node: the kubelet rotated
		// the start of its log away (52,478 lines of CMA errors).
		{"log rotated away", "[worker-0:00032] Read -1, expected 1048576, errno = 1\n" + StepTrailer(2, 2, 0, time.Second),
			"line 2: end of step 2/2, which had not started: the log has lost its beginning, as when a step prints more than the kubelet keeps"},
		{"trailer of another step", h1 + StepTrailer(2, 2, 0, 0), "line 2: end of step 2/2, which had not started"},
		{"step 0", StepHeader(0, 2, []string{"a"}), "line 1: step 0/2 does not exist"},
		{"step beyond the total", StepHeader(3, 2, []string{"a"}), "line 1: step 3/2 does not exist"},
		{"huge number", "==> benchwright step 99999999999999999999/1: a <==\n", "line 1: step number"},
		{"bad duration", h1 + "==> benchwright step 1/2 exited with code 0 after 3parsecs <==\n", `line 2: duration "3parsecs"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := SplitSteps([]byte(tc.log))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error containing %q", summarize(steps), err, tc.want)
			}
			if steps != nil {
				t.Errorf("steps returned with the error: %v", summarize(steps))
			}
		})
	}
}

func steps(argvs ...[]string) []Step {
	var out []Step
	for _, a := range argvs {
		out = append(out, Step{Argv: a})
	}
	return out
}

// RunSteps on real programs: output in order between the markers, an
// unfinished last line ended before the trailer, the run stopped at the first
// failure, and SplitSteps reading it all back.
func TestRunStepsRunsInOrderAndStopsAtFailure(t *testing.T) {
	var out bytes.Buffer
	var status []string
	res, err := RunSteps(context.Background(), steps(
		[]string{"/bin/echo", "hello", "world"},
		[]string{"sh", "-c", `printf 'to stdout\n'; printf 'to stderr' >&2`},
		[]string{"sh", "-c", "echo $BENCHWRIGHT_STEP_ENV; exit 3"},
		[]string{"/bin/echo", "never"},
	), &out, RunOptions{Env: []string{"BENCHWRIGHT_STEP_ENV=from-env"}, Status: func(l string) { status = append(status, l) }})
	if err != nil {
		t.Fatal(err)
	}
	if res != (RunResult{Ran: 3, ExitCode: 3}) {
		t.Errorf("result %+v, want 3 steps ran, exit code 3", res)
	}
	got, err := SplitSteps(out.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := []stepSummary{
		{1, 4, "/bin/echo hello world", "hello world\n", 0, 0},
		{2, 4, `sh -c "printf 'to stdout\\n'; printf 'to stderr' >&2"`, "to stdout\nto stderr\n", 0, 0},
		{3, 4, `sh -c "echo $BENCHWRIGHT_STEP_ENV; exit 3"`, "from-env\n", 3, 0},
	}
	if diff := cmp.Diff(want, summarize(got), cmp.Comparer(func(a, b time.Duration) bool { return true })); diff != "" {
		t.Errorf("steps (-want +got):\n%s\nlog:\n%s", diff, out.String())
	}
	if len(status) != 6 || !strings.HasPrefix(status[0], "==> benchwright step 1/4: /bin/echo") || !strings.Contains(status[5], "step 3/4 exited with code 3") {
		t.Errorf("status lines: %q", status)
	}
}

func TestRunStepsExitCodes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/not-executable", []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv []string
		code int
		msg  string
	}{
		{[]string{"/bin/false"}, 1, ""},
		{[]string{"benchwright-no-such-program", "-x"}, ExitNotFound, "benchwright: step 1/1: benchwright-no-such-program not found: it is not installed or not on PATH"},
		{[]string{dir + "/missing"}, ExitNotFound, dir + "/missing not found"},
		{[]string{dir + "/not-executable"}, ExitCannotStart, "cannot start " + dir + "/not-executable"},
		{[]string{"sh", "-c", "kill -KILL $$"}, 128 + 9, ""},
	} {
		var out bytes.Buffer
		res, err := RunSteps(context.Background(), steps(tc.argv), &out, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		logs, err := SplitSteps(out.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != tc.code || logs[0].ExitCode != tc.code || !strings.Contains(string(logs[0].Output), tc.msg) {
			t.Errorf("%v: exit code %d (log: %d), want %d with %q; log:\n%s", tc.argv, res.ExitCode, logs[0].ExitCode, tc.code, tc.msg, out.String())
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a step writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until out contains s.
func waitFor(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	util.WaitFor(t, 10*time.Second, fmt.Sprintf("%q in the output", s), func() (bool, string) {
		o := out.String()
		return strings.Contains(o, s), "\n" + o
	})
}

const trapTERM = `trap 'echo got TERM; exit 0' TERM; echo ready; while :; do sleep 0.05; done`

func TestRunStepsForwardsSignals(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	var out syncBuffer
	type result struct {
		res RunResult
		err error
	}
	done := make(chan result)
	go func() {
		res, err := RunSteps(context.Background(), steps([]string{"sh", "-c", trapTERM}, []string{"/bin/echo", "never"}), &out, RunOptions{Signals: sigs})
		done <- result{res, err}
	}()
	waitFor(t, &out, "\nready\n") // on its own line: the header quotes the script too
	sigs <- syscall.SIGTERM
	r := <-done
	if r.err != nil || r.res != (RunResult{Ran: 1, ExitCode: 0, Signal: syscall.SIGTERM}) {
		t.Errorf("got %+v, %v; want step 1 ended by its own exit 0 after SIGTERM, run stopped", r.res, r.err)
	}
	if !strings.Contains(out.String(), "got TERM\n==> benchwright step 1/2 exited with code 0") || strings.Contains(out.String(), "never") {
		t.Errorf("log:\n%s", out.String())
	}
}

func TestRunStepsStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	errc := make(chan error)
	go func() {
		_, err := RunSteps(ctx, steps([]string{"sh", "-c", trapTERM}, []string{"/bin/echo", "never"}), &out, RunOptions{})
		errc <- err
	}()
	waitFor(t, &out, "\nready\n") // on its own line: the header quotes the script too
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if !strings.Contains(out.String(), "got TERM\n==> benchwright step 1/2 exited with code 0") || strings.Contains(out.String(), "never") {
		t.Errorf("log:\n%s", out.String())
	}
}

func FuzzSplitSteps(f *testing.F) {
	h1, h2 := StepHeader(1, 2, []string{"mpirun", "-np", "2", "osu_latency"}), StepHeader(2, 2, []string{"mpirun", "osu_bw"})
	t1, t2 := StepTrailer(1, 2, 0, 1234*time.Millisecond), StepTrailer(2, 2, 1, time.Minute)
	f.Add([]byte(h1 + "# OSU MPI Latency Test v7.5\n" + t1 + h2 + "x\n" + t2))
	f.Add([]byte("preamble\n" + h1 + "partial"))
	f.Add([]byte(h1 + t1 + "between\n" + h2))
	f.Add([]byte("==> benchwright step 1/1 exited with code 0 after 1s <==\n"))
	f.Add([]byte("==> benchwright step 1/1: <==\r\n\r\n"))
	f.Fuzz(func(t *testing.T, log []byte) {
		steps, err := SplitSteps(log)
		if err != nil {
			if steps != nil {
				t.Fatalf("steps returned with error %v", err)
			}
			return
		}
		if len(steps) == 0 {
			t.Fatal("no steps and no error")
		}
		// The outputs are disjoint pieces of the log, in order, each after
		// its own header line.
		pos, total := 0, 0
		for i, s := range steps {
			if s.Index != i+1 || s.Total != steps[0].Total || s.Index > s.Total {
				t.Fatalf("step %d numbered %d/%d", i, s.Index, s.Total)
			}
			if s.ExitCode == -1 && i != len(steps)-1 {
				t.Fatalf("step %d without trailer is not the last", s.Index)
			}
			at := headerLine(log, pos)
			if at < 0 {
				t.Fatalf("no header for step %d after offset %d", s.Index, pos)
			}
			off := len(log)
			if nl := bytes.IndexByte(log[at:], '\n'); nl >= 0 {
				off = at + nl + 1
			}
			if !bytes.Equal(log[off:min(off+len(s.Output), len(log))], s.Output) {
				t.Fatalf("step %d's output is not the text after its header", s.Index)
			}
			if markerLine(s.Output, 0) >= 0 {
				t.Fatalf("step %d's output holds a marker line: %q", s.Index, s.Output)
			}
			pos = off + len(s.Output)
			total += len(s.Output)
		}
		if total > len(log) {
			t.Fatalf("outputs hold %d bytes of a %d-byte log", total, len(log))
		}
	})
}

// markerLine is the offset of the first line at or after from that starts
// with the step marker, or -1.
func markerLine(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if (i == 0 || b[i-1] == '\n') && bytes.HasPrefix(b[i:], []byte(stepMarker)) {
			return i
		}
	}
	return -1
}

// headerLine is the offset of the first step header line at or after from,
// or -1.
func headerLine(b []byte, from int) int {
	for i := from; i >= 0 && i < len(b); {
		i = markerLine(b, i)
		if i < 0 {
			return -1
		}
		line, _, _ := bytes.Cut(b[i:], []byte("\n"))
		if stepHeaderRE.Match(bytes.TrimRight(line, "\r")) {
			return i
		}
		i++
	}
	return -1
}

// The runner's trailer places the step on the clock; an older runner's
// trailer, without it, still parses.
func TestSplitStepsEnded(t *testing.T) {
	end := time.UnixMilli(1795795572465)
	if got, want := StepTrailerAt(1, 2, 0, 1500*time.Millisecond, end), "==> benchwright step 1/2 exited with code 0 after 1.5s, ended at 1795795572465 <==\n"; got != want {
		t.Errorf("trailer %q, want %q", got, want)
	}
	log := StepHeader(1, 2, []string{"mpirun", "osu_latency"}) + "out\n" + StepTrailerAt(1, 2, 0, 1500*time.Millisecond, end) +
		StepHeader(2, 2, []string{"mpirun", "osu_bw"}) + StepTrailer(2, 2, 0, time.Second)
	steps, err := SplitSteps([]byte(log))
	if err != nil || len(steps) != 2 {
		t.Fatalf("%d steps, %v", len(steps), err)
	}
	if !steps[0].Ended.Equal(end) || steps[0].Duration != 1500*time.Millisecond || string(steps[0].Output) != "out\n" {
		t.Errorf("step 1: %+v", steps[0])
	}
	if !steps[1].Ended.IsZero() || steps[1].Duration != time.Second {
		t.Errorf("step 2 (an older runner's trailer): %+v", steps[1])
	}
	if _, err := SplitSteps([]byte(StepHeader(1, 1, []string{"x"}) + "==> benchwright step 1/1 exited with code 0 after 1s, ended at soon <==\n")); err == nil {
		t.Error("a trailer with an end that is no number parsed")
	}
}
