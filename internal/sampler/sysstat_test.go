package sampler

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; CI installs it (make test-deps)", name)
		}
		t.Skipf("%s is not installed (make test-deps)", name)
	}
}

// sysstatJSON is the part of mpstat's and iostat's JSON (-o JSON) read here.
type sysstatJSON struct {
	Sysstat struct {
		Hosts []struct {
			Statistics []struct {
				CPULoad []map[string]any `json:"cpu-load"`
				Disk    []map[string]any `json:"disk"`
			} `json:"statistics"`
		} `json:"hosts"`
	} `json:"sysstat"`
}

// TestAgreesWithSysstat runs real fio on this machine's disk, and sysstat's
// mpstat and iostat beside the sampler, all at 1 s for the same seconds: the
// sampler's mean CPU utilisation is within 2 percentage points of mpstat's,
// and its mean IOPS of the disk fio uses within 2 % of iostat's.
func TestAgreesWithSysstat(t *testing.T) {
	for _, tool := range []string{"fio", "mpstat", "iostat"} {
		needTool(t, tool)
	}
	dir := t.TempDir()
	disk := Source{Root: "/"}.VolumeDevices([]string{dir})[dir]
	if !validName(disk) {
		t.Skipf("the temporary directory is on no block device (%s)", disk)
	}
	const seconds = 8
	fio := exec.Command("fio", "--name=randread", "--rw=randread", "--bs=4k", "--ioengine=libaio", "--iodepth=16", "--direct=1",
		"--size=64M", "--time_based", "--runtime="+strconv.Itoa(seconds+6), "--filename="+filepath.Join(dir, "f"), "--output=/dev/null")
	if err := fio.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fio.Process.Kill(); _ = fio.Wait() }()
	time.Sleep(2 * time.Second) // laid out and running

	var (
		wg             sync.WaitGroup
		mpstat, iostat bytes.Buffer
		series         bytes.Buffer
		mpErr, ioErr   error
		samplerErr     error
		count          = strconv.Itoa(seconds)
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wg.Add(3)
	go func() {
		defer wg.Done()
		mpErr = outputTo(&mpstat, "mpstat", "-P", "ALL", "-o", "JSON", "1", count)
	}()
	go func() {
		defer wg.Done()
		ioErr = outputTo(&iostat, "iostat", "-d", "-x", "-y", "-o", "JSON", disk, "1", count)
	}()
	go func() {
		defer wg.Done()
		w := &Writer{Out: &series, Source: Source{Root: "/", Disks: []string{disk}}, Interval: time.Second}
		stopAt := time.AfterFunc(seconds*time.Second+500*time.Millisecond, cancel)
		defer stopAt.Stop()
		samplerErr = w.Run(ctx)
	}()
	wg.Wait()
	for _, err := range []error{mpErr, ioErr, samplerErr} {
		if err != nil {
			t.Fatal(err)
		}
	}

	s, ok := Decode(series.Bytes())
	if !ok || len(s.Points) < seconds {
		t.Fatalf("%d points (ok %v, problems %q)", len(s.Points), ok, s.Problems)
	}
	var samplerCPU, samplerIOPS float64
	for _, p := range s.Points[:seconds] {
		samplerCPU += 100 - p.CPU[cpuIdleShown] - p.CPU[3]
		samplerIOPS += p.Disks[disk][diskRIOPS] + p.Disks[disk][diskWIOPS]
	}
	samplerCPU /= seconds
	samplerIOPS /= seconds

	var mp, io sysstatJSON
	if err := json.Unmarshal(mpstat.Bytes(), &mp); err != nil {
		t.Fatalf("mpstat's JSON: %v\n%s", err, mpstat.String())
	}
	if err := json.Unmarshal(iostat.Bytes(), &io); err != nil {
		t.Fatalf("iostat's JSON: %v\n%s", err, iostat.String())
	}
	var mpCPU, ioIOPS float64
	var mpN, ioN int
	for _, st := range mp.Sysstat.Hosts[0].Statistics {
		for _, l := range st.CPULoad {
			if l["cpu"] == "all" {
				mpCPU += 100 - num(l["idle"]) - num(l["iowait"])
				mpN++
			}
		}
	}
	for _, st := range io.Sysstat.Hosts[0].Statistics {
		for _, d := range st.Disk {
			if d["disk_device"] == disk {
				ioIOPS += num(d["r/s"]) + num(d["w/s"])
				ioN++
			}
		}
	}
	if mpN != seconds || ioN != seconds {
		t.Fatalf("mpstat gave %d intervals, iostat %d; want %d", mpN, ioN, seconds)
	}
	mpCPU /= seconds
	ioIOPS /= seconds
	t.Logf("CPU utilisation: sampler %.2f %%, mpstat %.2f %%; %s IOPS: sampler %.0f, iostat %.0f (%+.2f %%)",
		samplerCPU, mpCPU, disk, samplerIOPS, ioIOPS, (samplerIOPS/ioIOPS-1)*100)
	if d := math.Abs(samplerCPU - mpCPU); d > 2 {
		t.Errorf("CPU utilisation differs by %.2f percentage points (sampler %.2f, mpstat %.2f)", d, samplerCPU, mpCPU)
	}
	if ioIOPS < 100 {
		t.Fatalf("iostat saw %.0f IOPS on %s: fio did not run there", ioIOPS, disk)
	}
	if r := math.Abs(samplerIOPS/ioIOPS - 1); r > 0.02 {
		t.Errorf("IOPS differ by %.2f %% (sampler %.0f, iostat %.0f)", r*100, samplerIOPS, ioIOPS)
	}
}

func outputTo(out *bytes.Buffer, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout = out
	cmd.Env = append(os.Environ(), "LC_ALL=C", "S_TIME_FORMAT=ISO")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}
