package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// sample is one idle manager's memory, in MiB (goroutines: a count).
type sample struct {
	vmRSS, vmHWM, rssAnon, rssFile        float64
	heapInuse, heapSys, stackInuse, goSys float64
	goroutines                            float64
}

// columns name sample's fields in the order of values.
var columns = []string{"VmRSS", "VmHWM", "RssAnon", "RssFile", "HeapInuse", "HeapSys", "StackInuse", "GoSys", "goroutines"}

func (s sample) values() []float64 {
	return []float64{s.vmRSS, s.vmHWM, s.rssAnon, s.rssFile, s.heapInuse, s.heapSys, s.stackInuse, s.goSys, s.goroutines}
}

func header() string {
	var b strings.Builder
	for _, c := range columns {
		fmt.Fprintf(&b, " %10s", c)
	}
	return b.String()
}

func (s sample) row() string {
	var b strings.Builder
	for _, v := range s.values() {
		fmt.Fprintf(&b, " %10.1f", v)
	}
	return b.String()
}

// ratios are s's values over old's, column by column.
func (s sample) ratios(old sample) []float64 {
	n, o := s.values(), old.values()
	r := make([]float64, len(n))
	for i := range n {
		r[i] = n[i] / o[i]
	}
	return r
}

func ratioRow(r []float64) string {
	var b strings.Builder
	for _, v := range r {
		fmt.Fprintf(&b, " %10.3f", v)
	}
	return b.String()
}

// measure runs the manager bin, with env added to this program's, until its controllers' workers started, lets it
// idle for settle, and samples it; with a profile path, it also saves the
// manager's heap profile there (its --pprof-bind-address).
func measure(ctx context.Context, bin string, env []string, kubeconfig, dir string, controllers int, settle time.Duration, profile string) (sample, error) {
	ports := make([]int, 4)
	for i := range ports {
		p, err := freePort()
		if err != nil {
			return sample{}, err
		}
		ports[i] = p
	}
	store, err := os.MkdirTemp(dir, "store")
	if err != nil {
		return sample{}, err
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--artifact-store=file://" + store,
		"--metrics-secure=false",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", ports[0]),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", ports[1]),
		fmt.Sprintf("--artifact-server-bind-address=127.0.0.1:%d", ports[2]),
	}
	if profile != "" {
		args = append(args, fmt.Sprintf("--pprof-bind-address=127.0.0.1:%d", ports[3]))
	}
	if err := dropPageCache(bin); err != nil {
		return sample{}, err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	logPath := filepath.Join(dir, filepath.Base(bin)+".log")
	logs, err := os.Create(logPath)
	if err != nil {
		return sample{}, err
	}
	defer func() { _ = logs.Close() }()
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()

	deadline := time.Now().Add(2 * time.Minute)
	for started := 0; started < controllers; {
		if time.Now().After(deadline) {
			return sample{}, fmt.Errorf("%d of %d controllers started their workers in 2m (log: %s)", started, controllers, logPath)
		}
		time.Sleep(200 * time.Millisecond)
		data, err := os.ReadFile(logPath)
		if err != nil {
			return sample{}, err
		}
		started = strings.Count(string(data), "Starting workers")
	}
	time.Sleep(settle)

	var s sample
	status, err := procStatus(cmd.Process.Pid)
	if err != nil {
		return sample{}, err
	}
	s.vmRSS, s.vmHWM, s.rssAnon, s.rssFile = status["VmRSS"], status["VmHWM"], status["RssAnon"], status["RssFile"]
	m, err := scrape(fmt.Sprintf("http://127.0.0.1:%d/metrics", ports[0]))
	if err != nil {
		return sample{}, err
	}
	const mib = 1 << 20
	s.heapInuse, s.heapSys = m["go_memstats_heap_inuse_bytes"]/mib, m["go_memstats_heap_sys_bytes"]/mib
	s.stackInuse, s.goSys = m["go_memstats_stack_inuse_bytes"]/mib, m["go_memstats_sys_bytes"]/mib
	s.goroutines = m["go_goroutines"]
	if profile != "" {
		if err := download(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap", ports[3]), profile); err != nil {
			return sample{}, err
		}
	}
	return s, nil
}

// procStatus reads the kB lines of /proc/PID/status, in MiB.
func procStatus(pid int) (map[string]float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		f := strings.Fields(rest)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, fmt.Errorf("/proc/%d/status: %s: %w", pid, line, err)
		}
		out[name] = v / 1024
	}
	return out, nil
}

// scrape reads the unlabelled samples of a Prometheus text endpoint.
func scrape(url string) (map[string]float64, error) {
	resp, err := http.Get(url) //nolint:gosec,noctx // a local URL this program built
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("%s: %s: %s", url, resp.Status, body)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || strings.HasPrefix(f[0], "#") || strings.Contains(f[0], "{") {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			out[f[0]] = v
		}
	}
	return out, sc.Err()
}

func download(url, path string) error {
	resp, err := http.Get(url) //nolint:gosec,noctx // a local URL this program built
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// dropPageCache evicts bin's pages from the page cache, so that every run
// reads its binary from disk as a fresh container does: how much of a binary
// a process keeps resident depends on how its file's pages were cached (the
// size of the page cache's folios), which a build or an earlier run leaves
// different each time.
func dropPageCache(bin string) error {
	f, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
