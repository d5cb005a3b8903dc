package netbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxOutput bounds what is kept of one process's output: fabtests prints a
// few KiB per run, iperf3 -J some tens.
const maxOutput = 1 << 20

// Exit codes of a process that did not run to its end.
const (
	exitNotFound    = 127
	exitCannotStart = 126
	exitTimedOut    = 124
)

// process is one running end of a step.
type process struct {
	argv []string
	cmd  *exec.Cmd
	out  *capped
	done chan struct{}
	code int
	took time.Duration
}

// start runs argv with env added, its stdout and stderr together.
func start(argv []string, env []string) *process {
	p := &process{argv: argv, out: &capped{max: maxOutput}, done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	began := time.Now()
	if err := p.cmd.Start(); err != nil {
		p.code = exitCannotStart
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			p.code = exitNotFound
			fmt.Fprintf(p.out, "benchwright: %s not found: it is not installed or not on PATH (%v)\n", argv[0], err)
		} else {
			fmt.Fprintf(p.out, "benchwright: cannot start %s: %v\n", argv[0], err)
		}
		close(p.done)
		return p
	}
	go func() {
		_ = p.cmd.Wait()
		p.code, p.took = exitCode(p.cmd.ProcessState), time.Since(began)
		close(p.done)
	}()
	return p
}

// wait waits for the process until ctx ends, then kills its process group
// and says so in its output.
func (p *process) wait(ctx context.Context, what string) int {
	select {
	case <-p.done:
		return p.code
	case <-ctx.Done():
	}
	p.kill()
	<-p.done
	fmt.Fprintf(p.out, "benchwright: %s killed: %v\n", what, context.Cause(ctx))
	p.code = exitTimedOut
	return p.code
}

// exited tells whether the process ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *process) kill() {
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// exitCode is a shell's $?: 128 + the signal that ended the process.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return exitCannotStart
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// capped keeps the first max bytes written and counts the rest.
type capped struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := max(c.max-c.buf.Len(), 0); room < len(p) {
		c.dropped += len(p) - room
		p = p[:room]
	}
	c.buf.Write(p)
	return n, nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.buf.String()
	if c.dropped > 0 {
		s += fmt.Sprintf("\nbenchwright: %d more bytes of output were dropped\n", c.dropped)
	}
	return s
}

// tailLines is how much of a tool's output a message quotes.
const tailLines = 5

// tail is the last lines of s, for a message.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return strings.Join(lines, "\n")
}
