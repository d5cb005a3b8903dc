package sampler

import (
	"maps"
	"slices"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// Phase is a stretch of a run that a tool marked: one test, or the whole
// repetition (Test "").
type Phase struct {
	Test       string    `json:"test"`
	Start, End time.Time `json:"-"`
	// StartMs and EndMs are Start and End in Unix milliseconds, as stored.
	StartMs int64 `json:"start"`
	EndMs   int64 `json:"end"`
	// Labels go on the phase's summary samples, as on the tool's figures of
	// the same stretch (a network pair, say).
	Labels map[string]string `json:"labels,omitempty"`
}

// NewPhase is a phase from its start and end.
func NewPhase(test string, start, end time.Time) Phase {
	return Phase{Test: test, Start: start, End: end, StartMs: start.UnixMilli(), EndMs: end.UnixMilli()}
}

// Labels of the summary samples.
const (
	// LabelSource is "sampler" on every summary sample, so that reports and
	// comparisons tell them from the tool's figures.
	LabelSource = "source"
	SourceValue = "sampler"
	LabelDevice = "device"
	LabelIface  = "interface"
	// LabelSide is a node's side of a network pair: client, server or both.
	LabelSide = "side"
)

// GroupBy are the labels that keep the sampler's summaries apart from the
// tool's (source) and those of different devices, interfaces and sides.
var GroupBy = []string{LabelSource, LabelDevice, LabelIface, LabelSide}

// Summary metric names.
const (
	MetricCPUUtil        = "node_cpu_util"
	MetricCPUUtilMax     = "node_cpu_util_max"
	MetricBusiestCore    = "node_busiest_core_util"
	MetricBusiestCoreMax = "node_busiest_core_util_max"
	MetricIowait         = "node_cpu_iowait"
	MetricSteal          = "node_cpu_steal"
	MetricMemUsedMax     = "node_mem_used_max"
	MetricDiskUtil       = "disk_util"
	MetricDiskUtilMax    = "disk_util_max"
	MetricDiskIOPS       = "disk_iops"
	MetricDiskMBps       = "disk_mbps"
	MetricDiskQueue      = "disk_queue"
	MetricNetMBps        = "net_mbps"
	MetricNetMBpsMax     = "net_mbps_max"
	MetricPodCPU         = "pod_cpu"
	MetricPodRSSMax      = "pod_rss_max"
	MetricPSIPrefix      = "psi_"
)

// Summarize is the series' summary samples over each phase: the mean and
// maximum CPU utilisation of the node and of its busiest core, per device
// its utilisation and IOPS, per interface its throughput, and the pod's own
// CPU and memory. A point counts in a phase when at least half of its
// interval lies in it. Samples carry Test and Labels; the caller completes
// them like the tool's.
func Summarize(s Series, phases []Phase) []results.Sample {
	var out []results.Sample
	for _, ph := range phases {
		pts := inPhase(s.Points, ph)
		if len(pts) == 0 {
			continue
		}
		add := func(metric, unit string, v float64, labels ...string) {
			l := map[string]string{LabelSource: SourceValue}
			maps.Copy(l, ph.Labels)
			for i := 0; i+1 < len(labels); i += 2 {
				l[labels[i]] = labels[i+1]
			}
			out = append(out, results.Sample{Test: ph.Test, Metric: metric, Value: round(v, 2), Unit: unit, Labels: l})
		}
		var util, busiest, iowait, steal, mem, podCPUs, podRSS stat
		psi := make([]stat, len(PSIFields))
		disks, nets := map[string]*diskStat{}, map[string]*stat{}
		for _, p := range pts {
			if u, ok := p.Util(); ok {
				util.add(u)
				iowait.add(p.CPU[3])
				steal.add(p.CPU[6])
			}
			if b, ok := p.BusiestCore(); ok {
				busiest.add(b)
			}
			if p.Mem != nil {
				mem.add(p.Mem[memUsed])
			}
			for i, v := range p.PSI {
				if v >= 0 {
					psi[i].add(v)
				}
			}
			for name, d := range p.Disks {
				if disks[name] == nil {
					disks[name] = &diskStat{}
				}
				disks[name].util.add(d[diskUtil])
				disks[name].iops.add(d[diskRIOPS] + d[diskWIOPS])
				disks[name].mbps.add(d[2] + d[3])
				disks[name].queue.add(d[5])
			}
			for name, n := range p.Nets {
				if nets[name] == nil {
					nets[name] = &stat{}
				}
				nets[name].add(n[netRx] + n[netTx])
			}
			if p.Pod != nil {
				podCPUs.add(p.Pod[podCPU])
				podRSS.add(p.Pod[1])
			}
		}
		if util.n > 0 {
			add(MetricCPUUtil, "%", util.mean())
			add(MetricCPUUtilMax, "%", util.max)
			add(MetricIowait, "%", iowait.mean())
			add(MetricSteal, "%", steal.mean())
		}
		if busiest.n > 0 {
			add(MetricBusiestCore, "%", busiest.mean())
			add(MetricBusiestCoreMax, "%", busiest.max)
		}
		if mem.n > 0 {
			add(MetricMemUsedMax, "MiB", mem.max)
		}
		for i, st := range psi {
			if st.n > 0 {
				add(MetricPSIPrefix+PSIFields[i], "%", st.mean())
			}
		}
		for _, name := range slices.Sorted(maps.Keys(disks)) {
			d := disks[name]
			if d.iops.max == 0 && d.util.max == 0 {
				continue // idle throughout: not part of the run
			}
			add(MetricDiskUtil, "%", d.util.mean(), LabelDevice, name)
			add(MetricDiskUtilMax, "%", d.util.max, LabelDevice, name)
			add(MetricDiskIOPS, "IOPS", d.iops.mean(), LabelDevice, name)
			add(MetricDiskMBps, "MB/s", d.mbps.mean(), LabelDevice, name)
			add(MetricDiskQueue, "requests", d.queue.mean(), LabelDevice, name)
		}
		for _, name := range slices.Sorted(maps.Keys(nets)) {
			n := nets[name]
			if n.max == 0 {
				continue
			}
			add(MetricNetMBps, "MB/s", n.mean(), LabelIface, name)
			add(MetricNetMBpsMax, "MB/s", n.max, LabelIface, name)
		}
		if podCPUs.n > 0 {
			add(MetricPodCPU, "% of a core", podCPUs.mean())
			add(MetricPodRSSMax, "MiB", podRSS.max)
		}
	}
	return out
}

// Util is the node's CPU utilisation in a point: neither idle nor iowait.
func (p Point) Util() (float64, bool) {
	if p.CPU == nil {
		return 0, false
	}
	return 100 - p.CPU[cpuIdleShown] - p.CPU[3], true
}

// BusiestCore is the highest utilisation of any core in a point.
func (p Point) BusiestCore() (float64, bool) {
	best, ok := 0.0, false
	for _, c := range p.Cores {
		if c == nil {
			continue
		}
		u := 0.0
		for i, v := range c {
			if i != 3 { // iowait is idle time
				u += v
			}
		}
		best, ok = max(best, u), true
	}
	return min(best, 100), ok
}

// inPhase is the points of which at least half the interval lies in the phase.
func inPhase(points []Point, ph Phase) []Point {
	var out []Point
	for _, p := range points {
		end := p.T
		start := end - int64(p.Dt*1000)
		overlap := min(end, ph.EndMs) - max(start, ph.StartMs)
		if overlap*2 >= end-start && end > start {
			out = append(out, p)
		}
	}
	return out
}

type stat struct {
	n        int
	sum, max float64
}

func (s *stat) add(v float64) {
	s.n++
	s.sum += v
	s.max = max(s.max, v)
}

func (s *stat) mean() float64 {
	if s.n == 0 {
		return 0
	}
	return s.sum / float64(s.n)
}

type diskStat struct{ util, iops, mbps, queue stat }
