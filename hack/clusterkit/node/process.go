package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Processes are kept as hack/lib/cluster.sh keeps them, so its stop and
// running read them too: Dir/run/NAME.pid, NAME.exe (the binary's path, so
// a recycled pid is never taken for ours) and NAME.args; the log is
// Dir/logs/NAME.log, the previous one NAME.log.1.

// running is the pid of NAME when it runs its recorded binary.
func (h *Host) running(name string) (int, bool) {
	data, err := os.ReadFile(filepath.Join(h.procDir(), name+".pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0, false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return 0, false
	}
	want, err := os.ReadFile(filepath.Join(h.procDir(), name+".exe"))
	return pid, err == nil && strings.TrimSpace(string(want)) == exe
}

// ensure starts NAME (bin with args, in netns) unless it runs with the same
// binary and arguments; otherwise it is restarted.
func (h *Host) ensure(name, netns, bin string, args ...string) error {
	sum := fmt.Sprintf("%s\n%s\n%s", netns, bin, strings.Join(args, "\n"))
	if _, ok := h.running(name); ok {
		if old, err := os.ReadFile(filepath.Join(h.procDir(), name+".args")); err == nil && string(old) == sum {
			return nil
		}
		h.stop(name)
	}
	if err := os.WriteFile(filepath.Join(h.procDir(), name+".args"), []byte(sum), 0o644); err != nil {
		return err
	}
	return h.start(name, netns, bin, args...)
}

// start runs bin detached (its own session, no inherited descriptors) in
// network namespace netns, logging to Dir/logs/NAME.log.
func (h *Host) start(name, netns, bin string, args ...string) error {
	exe, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	logFile := filepath.Join(h.logDir(), name+".log")
	if _, err := os.Stat(logFile); err == nil {
		_ = os.Rename(logFile, logFile+".1")
	}
	log, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	argv := append([]string{"--net=/run/netns/" + netns, bin}, args...)
	fmt.Fprintf(log, "# %s netns %s: %s %s\n", time.Now().UTC().Format(time.RFC3339), netns, bin, strings.Join(args, " "))
	closeInheritedOnExec()
	cmd := exec.Command("nsenter", argv...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	pid := cmd.Process.Pid
	// nsenter execs the binary: the pid is ours once it shows it.
	go func() { _ = cmd.Wait() }()
	if err := os.WriteFile(filepath.Join(h.procDir(), name+".pid"), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(h.procDir(), name+".exe"), []byte(exe+"\n"), 0o644); err != nil {
		return err
	}
	for range 50 {
		if _, ok := h.running(name); ok {
			return nil
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not start: %s", name, tail(logFile, 5))
}

// closeInheritedOnExec marks the descriptors this process inherited (a
// script's lock, above all) close-on-exec: a node's processes, which outlive
// us, must not hold them. Go opens its own close-on-exec.
func closeInheritedOnExec() {
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if n, err := strconv.Atoi(fd.Name()); err == nil && n > 2 {
			syscall.CloseOnExec(n)
		}
	}
}

// stop ends NAME: SIGTERM, then SIGKILL after 10 s.
func (h *Host) stop(name string) {
	if pid, ok := h.running(name); ok {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 100 && alive(pid); i++ {
			time.Sleep(100 * time.Millisecond)
		}
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			for i := 0; i < 50 && alive(pid); i++ {
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	for _, ext := range []string{".pid", ".exe", ".args"} {
		_ = os.Remove(filepath.Join(h.procDir(), name+ext))
	}
}

// alive: pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// run runs a command to its end, its output in the error when it fails.
func run(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// output runs a command and returns its standard output.
func output(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", err
	}
	return string(out), nil
}

// tail is the last n lines of file, for an error.
func tail(file string, n int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}
