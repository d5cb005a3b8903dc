package mpi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The step log: a launcher runs the steps of a Launch in order and prints,
// around each step's own output (stdout and stderr together),
//
//	==> benchwright step 1/2: mpirun -np 2 ... osu_latency -m 1:8 <==
//	...the step's output...
//	==> benchwright step 1/2 exited with code 0 after 12.345s, ended at 1795795572465 <==
//
// (the end in Unix milliseconds, which older runners did not print).
// Arguments that are not plain words are printed Go-quoted, so a header is
// always one line. An exit code above 128 is 128 + the signal that ended the
// step, as in a shell; 127 is a program that was not found, 126 one that
// could not be started. The runner stops after the first step that exits
// non-zero, so a failed run's log ends with that step's trailer.
const (
	stepMarker  = "==> benchwright step "
	stepClosing = " <=="
)

var (
	stepHeaderRE  = regexp.MustCompile(`^==> benchwright step (\d+)/(\d+): (.*) <==$`)
	stepTrailerRE = regexp.MustCompile(`^==> benchwright step (\d+)/(\d+) exited with code (\d+) after (\S+?)(?:, ended at (\d{1,15}))? <==$`)
	plainArgRE    = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)
)

// Exit codes the runner gives a step that did not run.
const (
	ExitNotFound    = 127 // the program is not on PATH
	ExitCannotStart = 126 // the program exists but could not be started
)

// StepHeader is the line printed before step i (1-based) of n.
func StepHeader(i, n int, argv []string) string {
	return fmt.Sprintf("%s%d/%d: %s%s\n", stepMarker, i, n, FormatArgv(argv), stepClosing)
}

// StepTrailer is the line printed after step i (1-based) of n ended.
func StepTrailer(i, n, code int, d time.Duration) string {
	return fmt.Sprintf("%s%d/%d exited with code %d after %s%s\n", stepMarker, i, n, code, d.Round(time.Millisecond), stepClosing)
}

// StepTrailerAt is StepTrailer with the step's end, Unix milliseconds: the
// runner's trailer, which places the step on the node's clock.
func StepTrailerAt(i, n, code int, d time.Duration, end time.Time) string {
	return fmt.Sprintf("%s%d/%d exited with code %d after %s, ended at %d%s\n", stepMarker, i, n, code, d.Round(time.Millisecond), end.UnixMilli(), stepClosing)
}

// FormatArgv renders argv on one line: plain words as they are, anything
// else Go-quoted.
func FormatArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = a
		if !plainArgRE.MatchString(a) {
			parts[i] = strconv.Quote(a)
		}
	}
	return strings.Join(parts, " ")
}

// StepLog is one step's part of a launcher log.
type StepLog struct {
	// Index is the step's number as printed (1-based); Total the number of
	// steps the launcher had.
	Index, Total int
	// Argv is the command line as the header shows it (FormatArgv).
	Argv string
	// Output is what the step printed, stdout and stderr together. It is a
	// slice of the log given to SplitSteps, not a copy.
	Output []byte
	// ExitCode is the step's exit code, or -1 when the log ends before its
	// trailer: the step never finished (the launcher was killed, or the log
	// is truncated).
	ExitCode int
	// Duration is the step's run time from its trailer (0 without one).
	Duration time.Duration
	// Ended is when the step ended, from its trailer (zero when the runner
	// did not print it).
	Ended time.Time
}

// SplitSteps splits a launcher log at its step headers and trailers. Text
// outside any step (before the first header: the container's own messages;
// between a trailer and the next header; after the last trailer) belongs to
// no step and is dropped. Steps must appear in order 1, 2, ... with one total,
// each closed by its own trailer before the next starts; only the last may
// lack its trailer, and a marker cut off by the end of the log is ignored. A log that ends before all steps appeared returns fewer
// than Total steps: after a failed step (ExitCode != 0) that is the runner
// stopping, otherwise the launcher was cut short. A line that starts like a
// marker but is not one, steps out of order and a log without any header are
// errors.
func SplitSteps(log []byte) ([]StepLog, error) {
	var steps []StepLog
	open := false // the last step has no trailer yet
	outStart := 0
	for lineNo, pos := 1, 0; pos < len(log); lineNo++ {
		end := bytes.IndexByte(log[pos:], '\n')
		next := len(log)
		if end >= 0 {
			next = pos + end + 1
		}
		start := pos
		pos = next
		if !bytes.HasPrefix(log[start:next], []byte(stepMarker)) {
			continue
		}
		line := strings.TrimRight(string(log[start:next]), "\r\n")
		if m := stepHeaderRE.FindStringSubmatch(line); m != nil {
			i, n, err := stepNumbers(m[1], m[2])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			switch {
			case open:
				last := steps[len(steps)-1]
				return nil, fmt.Errorf("line %d: step %d/%d starts before step %d/%d ended", lineNo, i, n, last.Index, last.Total)
			case i != len(steps)+1 || (len(steps) > 0 && n != steps[0].Total):
				return nil, fmt.Errorf("line %d: step %d/%d out of order: expected step %d", lineNo, i, n, len(steps)+1)
			}
			steps = append(steps, StepLog{Index: i, Total: n, Argv: m[3], ExitCode: -1})
			open, outStart = true, pos
			continue
		}
		m := stepTrailerRE.FindStringSubmatch(line)
		if m == nil && end < 0 {
			// A marker cut off by the end of the log: the log is truncated.
			if open {
				steps[len(steps)-1].Output, open = log[outStart:start], false
			}
			break
		}
		if m == nil {
			return nil, fmt.Errorf("line %d: malformed step marker %q", lineNo, line)
		}
		i, n, err := stepNumbers(m[1], m[2])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		if len(steps) == 0 {
			// The first marker is an end: the log's beginning is gone. The
			// kubelet keeps a container's log to 10 MiB by default
			// (containerLogMaxSize) and rotates the rest away.
			return nil, fmt.Errorf("line %d: end of step %d/%d, which had not started: the log has lost its beginning, "+
				"as when a step prints more than the kubelet keeps of a container's log (containerLogMaxSize, 10 MiB by default)", lineNo, i, n)
		}
		if !open || steps[len(steps)-1].Index != i || steps[len(steps)-1].Total != n {
			return nil, fmt.Errorf("line %d: end of step %d/%d, which had not started", lineNo, i, n)
		}
		s := &steps[len(steps)-1]
		if s.ExitCode, err = strconv.Atoi(m[3]); err != nil {
			return nil, fmt.Errorf("line %d: exit code: %w", lineNo, err)
		}
		if s.Duration, err = time.ParseDuration(m[4]); err != nil || s.Duration < 0 {
			return nil, fmt.Errorf("line %d: duration %q is not one", lineNo, m[4])
		}
		if m[5] != "" {
			ms, _ := strconv.ParseInt(m[5], 10, 64) // at most 15 digits
			s.Ended = time.UnixMilli(ms)
		}
		s.Output, open = log[outStart:start], false
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("no %q header in the launcher log: the steps never started (the log starts with %q)", "==> benchwright step", firstLine(log))
	}
	if open {
		steps[len(steps)-1].Output = log[outStart:]
	}
	return steps, nil
}

// stepNumbers reads "i/n" of a marker: 1 <= i <= n.
func stepNumbers(is, ns string) (i, n int, err error) {
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, fmt.Errorf("step number: %w", err)
	}
	if i < 1 || i > n {
		return 0, 0, fmt.Errorf("step %d/%d does not exist", i, n)
	}
	return i, n, nil
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(string(b[:min(len(b), 200)]), "\n")
	return line
}

// RunOptions adapt RunSteps to its caller.
type RunOptions struct {
	// Env is added to this process's environment for every step.
	Env []string
	// Signals are forwarded to the running step; the run then stops after it.
	Signals <-chan os.Signal
	// StopGrace is how long a step may take to end after the context is
	// cancelled (it gets SIGTERM) before it is killed, and how long its
	// output is awaited after it exited (default 10s).
	StopGrace time.Duration
	// Status, if set, also receives every header and trailer line.
	Status func(line string)
}

// RunResult is how a run of steps ended.
type RunResult struct {
	// Ran is the number of steps that ran, the failed one included.
	Ran int
	// ExitCode is the last step's exit code: 0 when all succeeded.
	ExitCode int
	// Signal is the first signal forwarded to a step; nil if none came.
	Signal os.Signal
}

// RunSteps runs the steps in order, without a shell, writing each step's
// header, its output (stdout and stderr both) and its trailer to out. It
// stops after the first step that exits non-zero, after a forwarded signal
// and when ctx is done (the running step gets SIGTERM, then SIGKILL after
// StopGrace). The error is only for what is not a step's outcome: ctx's
// error, or out failing.
func RunSteps(ctx context.Context, steps []Step, out io.Writer, opts RunOptions) (RunResult, error) {
	if opts.StopGrace <= 0 {
		opts.StopGrace = 10 * time.Second
	}
	var res RunResult
	for i, s := range steps {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		select {
		case sig := <-opts.Signals:
			res.Signal = sig
			return res, nil
		default:
		}
		code, sig, err := runStep(ctx, i+1, len(steps), s.Argv, out, opts)
		res.Ran, res.ExitCode = i+1, code
		if res.Signal == nil {
			res.Signal = sig
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil || code != 0 || res.Signal != nil {
			return res, err
		}
	}
	return res, nil
}

// runStep runs step i of n between its header and trailer.
func runStep(ctx context.Context, i, n int, argv []string, out io.Writer, opts RunOptions) (code int, sig os.Signal, err error) {
	if err := writeStatus(out, StepHeader(i, n, argv), opts); err != nil {
		return 0, nil, err
	}
	lw := &lineEndWriter{w: out}
	start := time.Now()
	code, sig = execStep(ctx, i, n, argv, lw, opts)
	if lw.open {
		// The trailer starts a line of its own.
		if _, err := io.WriteString(out, "\n"); err != nil {
			return code, sig, err
		}
	}
	if lw.err != nil {
		return code, sig, lw.err
	}
	return code, sig, writeStatus(out, StepTrailerAt(i, n, code, time.Since(start), time.Now()), opts)
}

// execStep starts argv with out as its stdout and stderr and waits for it,
// forwarding signals. A program that cannot start gets a message in out.
func execStep(ctx context.Context, i, n int, argv []string, out io.Writer, opts RunOptions) (int, os.Signal) {
	if len(argv) == 0 {
		fmt.Fprintf(out, "benchwright: step %d/%d has no command line\n", i, n)
		return ExitCannotStart, nil
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.Stdout, cmd.Stderr = out, out // one pipe: the order the step wrote in
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = opts.StopGrace
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(out, "benchwright: step %d/%d: %s not found: it is not installed or not on PATH (%v)\n", i, n, argv[0], err)
			return ExitNotFound, nil
		}
		fmt.Fprintf(out, "benchwright: step %d/%d: cannot start %s: %v\n", i, n, argv[0], err)
		return ExitCannotStart, nil
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	var first os.Signal
	for {
		select {
		case s := <-opts.Signals:
			if first == nil {
				first = s
			}
			_ = cmd.Process.Signal(s)
		case <-done:
			return exitCode(cmd.ProcessState), first
		}
	}
}

// exitCode is a shell's $? for a finished process: 128 + the signal that
// ended it, if one did.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return ExitCannotStart
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func writeStatus(out io.Writer, line string, opts RunOptions) error {
	if opts.Status != nil {
		opts.Status(strings.TrimSuffix(line, "\n"))
	}
	_, err := io.WriteString(out, line)
	return err
}

// lineEndWriter passes writes on and remembers whether the last one left a
// line open. exec calls Write from one goroutine at a time when stdout and
// stderr are the same writer.
type lineEndWriter struct {
	w    io.Writer
	open bool
	err  error
}

func (l *lineEndWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.open = p[n-1] != '\n'
	}
	if err != nil && l.err == nil {
		l.err = err
	}
	return n, err
}
