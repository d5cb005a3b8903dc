package sampler

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CPU fields of /proc/stat, in its order after the first four. Guest time is
// already inside user and nice, so it is not read again.
const (
	cpuUser = iota
	cpuNice
	cpuSystem
	cpuIdle
	cpuIowait
	cpuIrq
	cpuSoftirq
	cpuSteal
	cpuFields
)

// cpuTimes is one cpu line of /proc/stat, in clock ticks.
type cpuTimes [cpuFields]uint64

// diskCounters are the /proc/diskstats fields a sample needs.
type diskCounters struct {
	reads, readSectors, writes, writeSectors uint64
	// ioTicks is the milliseconds the device had I/O in flight;
	// queueTicks the weighted milliseconds (summed over requests).
	ioTicks, queueTicks uint64
}

// netCounters are the /proc/net/dev fields a sample needs.
type netCounters struct {
	rxBytes, rxPackets, rxErrs, rxDrop uint64
	txBytes, txPackets, txErrs, txDrop uint64
}

// procKey names a process across samples: a pid can be reused.
type procKey struct {
	pid   int
	start uint64
}

// procCounters are one process's CPU ticks (user and system) and resident pages.
type procCounters struct {
	ticks, rssPages uint64
}

// psiTotal is a /proc/pressure file's cumulative stall times, in microseconds.
type psiTotal struct{ some, full uint64 }

// Limits on what one reading keeps: a node with more is read up to them and
// the sample says so.
const (
	maxCores   = 1024
	maxDisks   = 64
	maxNets    = 64
	maxProcs   = 4096
	maxNameLen = 64
)

// counters is one reading of every source.
type counters struct {
	at    time.Time
	total cpuTimes
	cores map[int]cpuTimes
	// mem is /proc/meminfo in kB, by field.
	mem   map[string]uint64
	psi   map[string]psiTotal
	disks map[string]diskCounters
	nets  map[string]netCounters
	// procs is nil when the pod's processes are not read.
	procs map[procKey]procCounters
	// missing names the sources that could not be read, with why.
	missing []string
}

// Source reads the counters under Root (normally "/"). Procs reads the
// pod's processes (a pod that shares its process namespace); Self is the
// sampler's own pid, left out of them.
type Source struct {
	Root  string
	Procs bool
	Self  int
	// Disks, when set, keeps only these devices.
	Disks []string
}

func (s Source) path(p string) string { return filepath.Join(s.Root, p) }

// read takes one reading. A source that cannot be read is named in missing,
// never an error: a sample is made of what there is.
func (s Source) read(now time.Time) counters {
	c := counters{at: now}
	s.readStat(&c)
	s.readMeminfo(&c)
	s.readPressure(&c)
	s.readDiskstats(&c)
	s.readNetDev(&c)
	if s.Procs {
		s.readProcs(&c)
	}
	return c
}

// maxProcFile bounds each /proc file read: /proc/stat of a 1024-CPU node is
// about 150 KiB.
const maxProcFile = 1 << 20

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(io.LimitReader(f, maxProcFile))
	return buf.Bytes(), err
}

func (s Source) readStat(c *counters) {
	data, err := readBounded(s.path("proc/stat"))
	if err != nil {
		c.missing = append(c.missing, "cpu: "+err.Error())
		return
	}
	c.cores = map[int]cpuTimes{}
	total := false
	for line := range bytes.Lines(data) {
		f := strings.Fields(string(line))
		if len(f) < 5 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		var t cpuTimes
		parseUints(t[:], f[1:])
		if f[0] == "cpu" {
			c.total, total = t, true
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil || n < 0 || n >= maxCores {
			continue
		}
		c.cores[n] = t
	}
	if !total {
		c.missing = append(c.missing, "cpu: /proc/stat has no cpu line")
	}
}

// memFields are the /proc/meminfo fields kept.
var memFields = []string{"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "Dirty", "Writeback", "SwapTotal", "SwapFree"}

func (s Source) readMeminfo(c *counters) {
	data, err := readBounded(s.path("proc/meminfo"))
	if err != nil {
		c.missing = append(c.missing, "memory: "+err.Error())
		return
	}
	c.mem = map[string]uint64{}
	for line := range bytes.Lines(data) {
		name, rest, ok := strings.Cut(string(line), ":")
		if !ok || !slices.Contains(memFields, name) {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if v, err := strconv.ParseUint(f[0], 10, 64); err == nil {
			c.mem[name] = v
		}
	}
}

// psiResources are the pressure files read, when the kernel has them.
var psiResources = []string{"cpu", "io", "memory"}

func (s Source) readPressure(c *counters) {
	for _, r := range psiResources {
		data, err := readBounded(s.path("proc/pressure/" + r))
		if err != nil {
			c.missing = append(c.missing, "pressure "+r+": "+err.Error())
			continue
		}
		var t psiTotal
		for line := range bytes.Lines(data) {
			f := strings.Fields(string(line))
			if len(f) == 0 {
				continue
			}
			total, ok := fieldValue(f, "total=")
			if !ok {
				continue
			}
			switch f[0] {
			case "some":
				t.some = total
			case "full":
				t.full = total
			}
		}
		if c.psi == nil {
			c.psi = map[string]psiTotal{}
		}
		c.psi[r] = t
	}
}

// parseUints reads the fields into v, as many as both hold; a field that is
// no number reads 0.
func parseUints(v []uint64, fields []string) {
	for i := range min(len(v), len(fields)) {
		v[i], _ = strconv.ParseUint(fields[i], 10, 64)
	}
}

func fieldValue(fields []string, prefix string) (uint64, bool) {
	for _, f := range fields {
		if v, ok := strings.CutPrefix(f, prefix); ok {
			n, err := strconv.ParseUint(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// readDiskstats reads the whole disks (not partitions, not loop or ram
// devices that never did I/O): /sys/block lists whole disks.
func (s Source) readDiskstats(c *counters) {
	data, err := readBounded(s.path("proc/diskstats"))
	if err != nil {
		c.missing = append(c.missing, "disks: "+err.Error())
		return
	}
	c.disks = map[string]diskCounters{}
	for line := range bytes.Lines(data) {
		f := strings.Fields(string(line))
		if len(f) < 14 || len(c.disks) >= maxDisks {
			continue
		}
		name := f[2]
		if !validName(name) || !s.wantDisk(name) {
			continue
		}
		var v [11]uint64
		parseUints(v[:], f[3:])
		d := diskCounters{reads: v[0], readSectors: v[2], writes: v[4], writeSectors: v[6], ioTicks: v[9], queueTicks: v[10]}
		if d == (diskCounters{}) {
			continue
		}
		c.disks[name] = d
	}
}

func (s Source) wantDisk(name string) bool {
	if len(s.Disks) > 0 {
		return slices.Contains(s.Disks, name)
	}
	if strings.HasPrefix(name, "ram") || strings.HasPrefix(name, "zram") {
		return false
	}
	_, err := os.Stat(s.path("sys/block/" + name))
	return err == nil
}

func (s Source) readNetDev(c *counters) {
	data, err := readBounded(s.path("proc/net/dev"))
	if err != nil {
		c.missing = append(c.missing, "network: "+err.Error())
		return
	}
	c.nets = map[string]netCounters{}
	for line := range bytes.Lines(data) {
		name, rest, ok := strings.Cut(string(line), ":")
		name = strings.TrimSpace(name)
		f := strings.Fields(rest)
		if !ok || len(f) < 16 || !validName(name) || len(c.nets) >= maxNets {
			continue
		}
		var v [16]uint64
		parseUints(v[:], f)
		c.nets[name] = netCounters{rxBytes: v[0], rxPackets: v[1], rxErrs: v[2], rxDrop: v[3], txBytes: v[8], txPackets: v[9], txErrs: v[10], txDrop: v[11]}
	}
}

// readProcs reads every process in sight but the sampler and the pod's
// pause process: in a pod sharing its process namespace, the benchmark's.
func (s Source) readProcs(c *counters) {
	entries, err := os.ReadDir(s.path("proc"))
	if err != nil {
		c.missing = append(c.missing, "pod processes: "+err.Error())
		return
	}
	c.procs = map[procKey]procCounters{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == s.Self || len(c.procs) >= maxProcs {
			continue
		}
		data, err := readBounded(s.path("proc/" + e.Name() + "/stat"))
		if err != nil {
			continue // gone meanwhile
		}
		comm, p, ok := parseProcStat(data)
		if !ok || comm == "pause" {
			continue
		}
		c.procs[procKey{pid: pid, start: p.start}] = procCounters{ticks: p.ticks, rssPages: p.rss}
	}
}

type procStat struct{ ticks, start, rss uint64 }

// parseProcStat reads /proc/PID/stat: the command is in parentheses and
// may hold spaces and parentheses itself, so fields are counted from the
// last ")".
func parseProcStat(data []byte) (string, procStat, bool) {
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return "", procStat{}, false
	}
	comm := string(data[open+1 : end])
	f := strings.Fields(string(data[end+1:]))
	// After the command: state(3) ppid(4) ... utime(14) stime(15) ...
	// starttime(22) vsize(23) rss(24); f[0] is field 3.
	if len(f) < 22 {
		return "", procStat{}, false
	}
	num := func(field int) uint64 { v, _ := strconv.ParseUint(f[field-3], 10, 64); return v }
	return comm, procStat{ticks: num(14) + num(15), start: num(22), rss: num(24)}, true
}

// validName is a device or interface name fit to be a key in the series.
func validName(s string) bool {
	if s == "" || len(s) > maxNameLen {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return !nameRune(r) })
}

// nameRune is a letter, a digit or one of "-_.@:".
func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.@:", r)
}
