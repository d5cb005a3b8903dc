package local

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/results"
)

// tailLines is how much of a failed tool's output an error quotes.
const tailLines = 15

// runFio runs one repetition of the job file and parses fio's JSON output.
func runFio(ctx context.Context, res *Result, opts Options, rep int, jobFile string, jobs []fio.Job) ([]results.Sample, error) {
	jobPath, err := res.rawPath(rep, "job.fio")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(jobPath, []byte(jobFile), 0o644); err != nil {
		return nil, err
	}
	outPath, err := res.rawPath(rep, "fio.json")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, opts.FioPath, "--output-format=json+", "--output="+outPath,
		"--eta=always", "--eta-interval=1s", jobPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// fio forks a process per job, and they hold its output pipe: stopped,
	// the whole process group goes, or an interrupted run would wait for
	// (and race with the removal of) jobs still doing I/O.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	eta, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting fio: %w", err)
	}
	showETA(eta, opts, len(jobs))
	waitErr := cmd.Wait()
	out, _ := os.ReadFile(outPath)
	if waitErr != nil {
		return nil, fmt.Errorf("fio failed after %s: %w\n%s", time.Since(start).Round(time.Second), waitErr, tail(append(out, stderr.Bytes()...)))
	}
	if windows, ok := fio.JobWindows(out, nil); ok {
		for _, w := range windows {
			res.phase(rep, w.Job, w.Start, w.End)
		}
	}
	samples, err := fio.ParseJSON(out)
	if err != nil {
		return samples, fmt.Errorf("parsing fio's output %s: %w\n%s", outPath, err, tail(out))
	}
	return samples, nil
}

// showETA relays fio's own status line ("Jobs: 1 (f=1): [r(1)][50.0%][r=…]")
// every few seconds, so a long run shows it is alive.
func showETA(r io.Reader, opts Options, jobs int) {
	sc := bufio.NewScanner(r)
	sc.Split(scanCRLF)
	last := time.Time{}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		// Until it knows, fio prints its eta as -1 seconds in an unsigned
		// count: "[eta 49710d:06h:28m:14s]". Not news.
		if !strings.HasPrefix(line, "Jobs:") || strings.Contains(line, "eta 49710d") || time.Since(last) < 5*time.Second {
			continue
		}
		last = time.Now()
		opts.progress("  fio (%d job(s)): %s", jobs, line)
	}
}

// scanCRLF splits on \r or \n: fio redraws its status line with \r.
func scanCRLF(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	if atEOF {
		return 0, nil, io.EOF
	}
	return 0, nil, nil
}

// tail quotes the last lines of a tool's output for an error message.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return "last lines of the output:\n  " + strings.Join(lines, "\n  ")
}
