// Command artifact-rss measures the artifact server's peak RSS (VmHWM)
// while 20 slow clients read the store's largest objects at once: two server
// binaries (old and new), alternated pair by pair. hack/artifact-rss.sh
// builds them and runs it.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
)

func main() {
	oldBin := flag.String("old", "", "the old server binary")
	newBin := flag.String("new", "", "the new server binary")
	pairs := flag.Int("pairs", 5, "old/new pairs, alternated")
	readers := flag.Int("readers", 20, "concurrent readers")
	objects := flag.Int("objects", 4, "objects of -size each (a published report's 64 MiB cap)")
	size := flag.Int("size", 64<<20, "bytes per object")
	rate := flag.Int("rate", 8<<20, "bytes a second each reader takes")
	flag.Parse()
	if *oldBin == "" || *newBin == "" {
		fmt.Fprintln(os.Stderr, "give -old and -new")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "artifact-rss-")
	if err != nil {
		fail(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	paths, err := populate(dir, *objects, *size)
	if err != nil {
		fail(err)
	}
	fmt.Printf("%d readers at %d MiB/s each of %d objects of %d MiB; peak RSS (VmHWM) of the server\n", *readers, *rate>>20, *objects, *size>>20)
	fmt.Printf("%-5s %12s %12s %8s   %s\n", "pair", "old MiB", "new MiB", "old/new", "new: 429s retried")
	for i := 1; i <= *pairs; i++ {
		o, _, err := measure(*oldBin, dir, paths, *readers, *rate, *size)
		if err != nil {
			fail(fmt.Errorf("old: %w", err))
		}
		n, busy, err := measure(*newBin, dir, paths, *readers, *rate, *size)
		if err != nil {
			fail(fmt.Errorf("new: %w", err))
		}
		fmt.Printf("%-5d %12.1f %12.1f %7.1fx   %d\n", i, float64(o)/1024, float64(n)/1024, float64(o)/float64(n), busy)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "artifact-rss:", err)
	os.Exit(1)
}

// populate writes n objects of size random bytes: campaign reports, the
// largest objects the store holds.
func populate(dir string, n, size int) ([]string, error) {
	ctx := context.Background()
	store, err := artifacts.Open(ctx, "file://"+dir)
	if err != nil {
		return nil, err
	}
	defer func() { _ = store.Close() }()
	data := make([]byte, size)
	var paths []string
	for i := range n {
		_, _ = rand.Read(data)
		key, err := artifacts.CampaignReport("perf", fmt.Sprintf("s%d", i), "html")
		if err != nil {
			return nil, err
		}
		if err := store.Put(ctx, key, data, "text/html"); err != nil {
			return nil, err
		}
		paths = append(paths, fmt.Sprintf("/campaigns/perf/s%d/report.html", i))
	}
	return paths, nil
}

// measure starts bin on the store, lets readers read at rate, and returns
// the server's VmHWM in KiB and how many 429s the readers retried.
func measure(bin, dir string, paths []string, readers, rate, size int) (int, int64, error) {
	cmd := exec.Command(bin, "-store", "file://"+filepath.Clean(dir))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("reading the server's address: %w", err)
	}
	base := "http://" + strings.TrimSpace(addr)
	var wg sync.WaitGroup
	var busy atomic.Int64
	errs := make(chan error, readers)
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := slowRead(base+paths[i%len(paths)], rate, &busy)
			if err == nil && n != int64(size) {
				err = fmt.Errorf("read %d bytes, want %d", n, size)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, err
	}
	hwm, err := vmHWM(cmd.Process.Pid)
	return hwm, busy.Load(), err
}

// slowRead GETs url, taking rate bytes a second in 64 KiB reads; a 429 is
// retried after its Retry-After.
func slowRead(url string, rate int, busy *atomic.Int64) (int64, error) {
	for {
		resp, err := http.Get(url)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			_ = resp.Body.Close()
			busy.Add(1)
			wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			time.Sleep(time.Duration(max(wait, 1)) * time.Second)
			continue
		}
		if resp.StatusCode != http.StatusOK {
			_ = resp.Body.Close()
			return 0, fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		const chunk = 64 << 10
		tick := time.Duration(float64(time.Second) * chunk / float64(rate))
		var total int64
		for {
			n, err := io.CopyN(io.Discard, resp.Body, chunk)
			total += n
			if errors.Is(err, io.EOF) {
				_ = resp.Body.Close()
				return total, nil
			}
			if err != nil {
				_ = resp.Body.Close()
				return total, err
			}
			time.Sleep(tick)
		}
	}
}

// vmHWM is the process's peak resident set, in KiB.
func vmHWM(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
