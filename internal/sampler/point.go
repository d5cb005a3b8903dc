package sampler

import "math"

// Point is one interval of the series: rates and shares over the interval
// that ends at T. Every slice follows the field names of the series' Header.
type Point struct {
	// T is the interval's end, Unix milliseconds; Dt its length in seconds.
	T  int64   `json:"t"`
	Dt float64 `json:"dt"`
	// CPU is the node's CPU time in percent, by CPUFields.
	CPU []float64 `json:"cpu,omitempty"`
	// Cores is each core's CPU time in percent, by CoreFields, indexed by
	// core number (null for a core not read).
	Cores [][]float64 `json:"cores,omitempty"`
	// Mem is the node's memory in MiB, by MemFields.
	Mem []float64 `json:"mem,omitempty"`
	// PSI is the percent of the interval some task stalled, by PSIFields
	// (-1: not read).
	PSI []float64 `json:"psi,omitempty"`
	// Disks and Nets are per device and interface, by DiskFields and NetFields.
	Disks map[string][]float64 `json:"disk,omitempty"`
	Nets  map[string][]float64 `json:"net,omitempty"`
	// Pod is the pod's own processes, by PodFields.
	Pod []float64 `json:"pod,omitempty"`
}

// Field names of a Point's slices, as the series' header lists them.
var (
	CPUFields  = []string{"user", "nice", "system", "iowait", "irq", "softirq", "steal", "idle"}
	CoreFields = CPUFields[:7]
	MemFields  = []string{"total", "available", "used", "cached", "dirty", "swap_used"}
	PSIFields  = []string{"cpu_some", "io_some", "io_full", "memory_some", "memory_full"}
	DiskFields = []string{"r_iops", "w_iops", "r_mbps", "w_mbps", "util", "aqu"}
	NetFields  = []string{"rx_mbps", "tx_mbps", "rx_pps", "tx_pps", "errors_ps", "drops_ps"}
	PodFields  = []string{"cpu", "rss_mib", "processes"}
)

// Indexes into those slices that code reads.
const (
	cpuIdleShown = 7
	diskRIOPS    = 0
	diskWIOPS    = 1
	diskUtil     = 4
	netRx, netTx = 0, 1
	podCPU       = 0
	memAvailable = 1
	memUsed      = 2
)

// clockTicks is USER_HZ, which /proc/stat and /proc/PID/stat count in: 100
// on every Linux architecture a node runs.
const clockTicks = 100

// point is the interval from prev to cur. A counter that went backwards
// (a reset, or a 32-bit counter that wrapped) is taken as wrapped at 2^32
// when it can have been, else the field is left out of this point.
func point(prev, cur counters) Point {
	dt := cur.at.Sub(prev.at).Seconds()
	p := Point{T: cur.at.UnixMilli(), Dt: round(dt, 3)}
	if dt <= 0 {
		return p
	}
	if prev.cores != nil && cur.cores != nil {
		p.CPU = cpuShares(prev.total, cur.total, len(CPUFields))
		n := 0
		for c := range cur.cores {
			n = max(n, c+1)
		}
		for c := 0; c < n; c++ {
			a, okA := prev.cores[c]
			b, okB := cur.cores[c]
			if !okA || !okB {
				p.Cores = append(p.Cores, nil)
				continue
			}
			p.Cores = append(p.Cores, cpuShares(a, b, len(CoreFields)))
		}
	}
	if cur.mem != nil {
		m := cur.mem
		mib := func(kb uint64) float64 { return round(float64(kb)/1024, 1) }
		used := sub(m["MemTotal"], m["MemAvailable"])
		p.Mem = []float64{mib(m["MemTotal"]), mib(m["MemAvailable"]), mib(used), mib(m["Cached"] + m["Buffers"]), mib(m["Dirty"] + m["Writeback"]), mib(sub(m["SwapTotal"], m["SwapFree"]))}
	}
	if cur.psi != nil {
		us := dt * 1e6
		share := func(r string, full bool) float64 {
			a, okA := prev.psi[r]
			b, okB := cur.psi[r]
			if !okA || !okB {
				return -1
			}
			d, ok := delta(a.some, b.some)
			if full {
				d, ok = delta(a.full, b.full)
			}
			if !ok {
				return -1
			}
			return round(min(100, float64(d)/us*100), 1)
		}
		p.PSI = []float64{share("cpu", false), share("io", false), share("io", true), share("memory", false), share("memory", true)}
	}
	for name, b := range cur.disks {
		a, ok := prev.disks[name]
		if !ok {
			continue
		}
		if v, ok := diskRates(a, b, dt); ok {
			if p.Disks == nil {
				p.Disks = map[string][]float64{}
			}
			p.Disks[name] = v
		}
	}
	for name, b := range cur.nets {
		a, ok := prev.nets[name]
		if !ok {
			continue
		}
		if v, ok := netRates(a, b, dt); ok {
			if p.Nets == nil {
				p.Nets = map[string][]float64{}
			}
			p.Nets[name] = v
		}
	}
	if cur.procs != nil {
		p.Pod = podShares(prev.procs, cur.procs, dt)
	}
	return p
}

// cpuShares is the share of each CPU field over the interval, in percent:
// the first n fields, idle last when n is all of them.
func cpuShares(a, b cpuTimes, n int) []float64 {
	var d cpuTimes
	var total uint64
	for i := range d {
		v, ok := delta(a[i], b[i])
		if !ok {
			return nil
		}
		d[i] = v
		total += v
	}
	if total == 0 {
		return nil
	}
	pct := func(v uint64) float64 { return round(float64(v)/float64(total)*100, 1) }
	shown := []float64{pct(d[cpuUser]), pct(d[cpuNice]), pct(d[cpuSystem]), pct(d[cpuIowait]), pct(d[cpuIrq]), pct(d[cpuSoftirq]), pct(d[cpuSteal]), pct(d[cpuIdle])}
	return shown[:n]
}

func diskRates(a, b diskCounters, dt float64) ([]float64, bool) {
	var d [6]uint64
	for i, pair := range [][2]uint64{{a.reads, b.reads}, {a.writes, b.writes}, {a.readSectors, b.readSectors}, {a.writeSectors, b.writeSectors}, {a.ioTicks, b.ioTicks}, {a.queueTicks, b.queueTicks}} {
		v, ok := delta(pair[0], pair[1])
		if !ok {
			return nil, false
		}
		d[i] = v
	}
	ms := dt * 1000
	return []float64{
		round(float64(d[0])/dt, 1), round(float64(d[1])/dt, 1),
		round(float64(d[2])*512/1e6/dt, 2), round(float64(d[3])*512/1e6/dt, 2),
		round(min(100, float64(d[4])/ms*100), 1), round(float64(d[5])/ms, 2),
	}, true
}

func netRates(a, b netCounters, dt float64) ([]float64, bool) {
	var d [6]uint64
	for i, pair := range [][2]uint64{{a.rxBytes, b.rxBytes}, {a.txBytes, b.txBytes}, {a.rxPackets, b.rxPackets}, {a.txPackets, b.txPackets},
		{a.rxErrs + a.txErrs, b.rxErrs + b.txErrs}, {a.rxDrop + a.txDrop, b.rxDrop + b.txDrop}} {
		v, ok := delta(pair[0], pair[1])
		if !ok {
			return nil, false
		}
		d[i] = v
	}
	return []float64{
		round(float64(d[0])/1e6/dt, 3), round(float64(d[1])/1e6/dt, 3),
		round(float64(d[2])/dt, 1), round(float64(d[3])/dt, 1),
		round(float64(d[4])/dt, 1), round(float64(d[5])/dt, 1),
	}, true
}

// podShares is the pod's processes' CPU (percent of one core), resident
// memory (MiB, shared pages counted in each process) and count. A process
// that started in the interval counts its whole time; one that ended in it
// loses its last part.
func podShares(prev, cur map[procKey]procCounters, dt float64) []float64 {
	var ticks, pages uint64
	for k, b := range cur {
		pages += b.rssPages
		if a, ok := prev[k]; ok {
			if d, ok := delta(a.ticks, b.ticks); ok {
				ticks += d
			}
			continue
		}
		ticks += b.ticks
	}
	cpu := float64(ticks) / clockTicks / dt * 100
	return []float64{round(cpu, 1), round(float64(pages)*float64(pageSize)/(1<<20), 1), float64(len(cur))}
}

// delta is b-a for a counter. A counter that went back is taken as one that
// wrapped at 32 bits when a was in the top half of 32 bits and b is in the
// bottom half; otherwise (a reset, a device replaced) ok is false.
func delta(a, b uint64) (uint64, bool) {
	if b >= a {
		return b - a, true
	}
	if a >= 1<<31 && a <= math.MaxUint32 && b < 1<<31 {
		return b + (math.MaxUint32 + 1 - a), true
	}
	return 0, false
}

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

func round(v float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(v*p) / p
}
