package sampler

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// fakeRoot writes files under a temporary root, path -> content.
func fakeRoot(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const netHeader = "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"

func TestPointFromTwoReadings(t *testing.T) {
	root := t.TempDir()
	fakeRoot(t, root, map[string]string{
		"sys/block/sda/size": "1\n",
		"proc/stat":          "cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 50 0 50 350 50 0 0 0 0 0\ncpu1 50 0 50 350 50 0 0 0 0 0\nintr 1\n",
		"proc/meminfo":       "MemTotal: 2097152 kB\nMemFree: 1048576 kB\nMemAvailable: 1572864 kB\nCached: 0 kB\n",
		"proc/pressure/cpu":  "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		"proc/diskstats":     "   8       0 sda 100 0 800 0 50 0 400 0 0 1000 2000 0 0 0 0 0 0\n   8       1 sda1 100 0 800 0 50 0 400 0 0 1000 2000 0 0 0 0 0 0\n   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"proc/net/dev":       netHeader + "  eth0: 1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0\n",
	})
	src := Source{Root: root}
	t0 := time.UnixMilli(1_000_000)
	a := src.read(t0)
	fakeRoot(t, root, map[string]string{
		// 2 s: cpu0 all user, cpu1 half idle half iowait.
		"proc/stat":         "cpu  300 0 100 800 200 0 0 0 0 0\ncpu0 250 0 50 350 50 0 0 0 0 0\ncpu1 50 0 50 450 150 0 0 0 0 0\n",
		"proc/meminfo":      "MemTotal: 2097152 kB\nMemFree: 524288 kB\nMemAvailable: 1048576 kB\nCached: 0 kB\n",
		"proc/pressure/cpu": "some avg10=0.00 avg60=0.00 avg300=0.00 total=501000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		"proc/diskstats":    "   8       0 sda 2100 0 8992 0 1050 0 2448 0 0 2000 6000 0 0 0 0 0 0\n   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"proc/net/dev":      netHeader + "  eth0: 2001000 1010 0 0 0 0 0 0 4002000 2020 1 1 0 0 0 0\n",
	})
	b := src.read(t0.Add(2 * time.Second))
	if len(b.missing) != 2 { // io and memory pressure
		t.Errorf("missing = %q, want io and memory pressure", b.missing)
	}
	p := point(a, b)
	eq := func(what string, got, want []float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Fatalf("%s = %v, want %v", what, got, want)
			}
		}
	}
	eq("cpu", p.CPU, []float64{50, 0, 0, 25, 0, 0, 0, 25})
	eq("core 0", p.Cores[0], []float64{100, 0, 0, 0, 0, 0, 0})
	eq("core 1", p.Cores[1], []float64{0, 0, 0, 50, 0, 0, 0})
	eq("mem", p.Mem, []float64{2048, 1024, 1024, 0, 0, 0})
	eq("psi", p.PSI, []float64{25, -1, -1, -1, -1})
	// 2000 reads and 1000 writes in 2 s; 8192 and 2048 sectors; 1000 of
	// 2000 ms busy; 4000 weighted ms.
	eq("sda", p.Disks["sda"], []float64{1000, 500, 2.1, 0.52, 50, 2})
	if len(p.Disks) != 1 {
		t.Errorf("disks %v: want sda only (not its partition, not an idle loop device)", p.Disks)
	}
	eq("eth0", p.Nets["eth0"], []float64{1, 2, 500, 1000, 0.5, 0.5})
	if p.Pod != nil {
		t.Errorf("pod figures %v without Procs", p.Pod)
	}
}

func TestDelta(t *testing.T) {
	for _, c := range []struct {
		a, b, want uint64
		ok         bool
	}{
		{10, 15, 5, true},
		{math.MaxUint32 - 9, 5, 15, true}, // a 32-bit counter wrapped
		{1000, 10, 0, false},              // reset, not a wrap
		{1 << 40, 10, 0, false},           // a 64-bit counter went back
	} {
		got, ok := delta(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("delta(%d, %d) = %d, %v; want %d, %v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}

func TestAResetCounterLeavesItsDeviceOut(t *testing.T) {
	root := t.TempDir()
	fakeRoot(t, root, map[string]string{"sys/block/sda/size": "1", "sys/block/sdb/size": "1",
		"proc/diskstats": "8 0 sda 5000 0 0 0 0 0 0 0 0 0 0\n8 16 sdb 5 0 0 0 0 0 0 0 0 0 0\n"})
	src := Source{Root: root}
	a := src.read(time.UnixMilli(0))
	fakeRoot(t, root, map[string]string{"proc/diskstats": "8 0 sda 3 0 0 0 0 0 0 0 0 0 0\n8 16 sdb 15 0 0 0 0 0 0 0 0 0 0\n"})
	p := point(a, src.read(time.UnixMilli(1000)))
	if _, ok := p.Disks["sda"]; ok || p.Disks["sdb"][0] != 10 {
		t.Errorf("disks %v: want sda left out (its counter went back) and sdb at 10 r/s", p.Disks)
	}
}

func TestProcessesOfThePod(t *testing.T) {
	root := t.TempDir()
	stat := func(comm string, ticks, start, rss int) string {
		// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime prio nice threads itreal starttime vsize rss
		return "1 (" + comm + ") S 0 0 0 0 0 0 0 0 0 0 " + itoa(ticks) + " 0 0 0 0 0 1 0 " + itoa(start) + " 0 " + itoa(rss) + " 0\n"
	}
	fakeRoot(t, root, map[string]string{
		"proc/1/stat":  stat("pause", 0, 1, 10),
		"proc/7/stat":  stat("fio", 100, 50, 256),
		"proc/9/stat":  stat("benchwright", 100, 50, 256), // the sampler itself
		"proc/12/stat": stat("a (b) c", 0, 60, 256),
	})
	src := Source{Root: root, Procs: true, Self: 9}
	a := src.read(time.UnixMilli(0))
	fakeRoot(t, root, map[string]string{"proc/7/stat": stat("fio", 250, 50, 512), "proc/12/stat": stat("a (b) c", 50, 60, 256)})
	p := point(a, src.read(time.UnixMilli(2000)))
	// fio 150 ticks and the other 50 in 2 s: 100% of a core.
	want := []float64{100, float64(768*pageSize) / (1 << 20), 2}
	for i := range want {
		if math.Abs(p.Pod[i]-want[i]) > 0.05 {
			t.Fatalf("pod = %v, want %v", p.Pod, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
