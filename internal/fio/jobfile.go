// Package fio turns a StorageBenchmark's fio and dd settings into fio job files
// and dd command lines, and the tools' output into samples.
package fio

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Defaults for what neither the job nor the spec says.
const (
	DefaultSize        = "1G"
	DefaultPresetTime  = 60 * time.Second
	DefaultPresetRamp  = 5 * time.Second
	DefaultEngine      = "libaio"
	defaultBlockSize   = "4k"
	defaultQueueDepth  = 1
	defaultNumJobs     = 1
	jobFileNamePattern = "benchwright.%s.fio"
)

// Job is one fio job with every default resolved.
type Job struct {
	Name      string
	RW        string
	BlockSize string
	IODepth   int32
	NumJobs   int32
	Direct    bool
	Engine    string
	RWMixRead *int32
	// RateIOPS caps each process (rate_iops); 0: no cap.
	RateIOPS int32
	Size     string
	Runtime  time.Duration // 0: size-based
	RampTime time.Duration
	Sync     bool
	Fsync    int32
}

// The same rules as the CRD, checked again because the local executor reads
// files that never passed the API server, and job files are text.
var (
	namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	sizePattern = regexp.MustCompile(`^[0-9]+[kKmMgGtT]?$`)
	rwValues    = map[string]bool{"read": true, "write": true, "randread": true, "randwrite": true, "rw": true, "readwrite": true, "randrw": true, "trim": true, "randtrim": true}
	engines     = map[string]bool{"libaio": true, "io_uring": true, "psync": true, "sync": true, "pvsync": true, "pvsync2": true, "posixaio": true, "mmap": true}
)

// Expand resolves a FioSpec to its jobs: the preset's, then the explicit ones,
// with the spec's size, runtime and ramp time filled in.
func Expand(spec *benchv1.FioSpec) ([]Job, error) {
	if spec == nil {
		return nil, fmt.Errorf("no fio settings")
	}
	var jobs []Job
	if spec.Preset != "" {
		preset, timeBased, err := presetFor(spec.Preset)
		if err != nil {
			return nil, err
		}
		for _, j := range preset {
			j.Size = cmp.Or(spec.Size, DefaultSize)
			if timeBased {
				j.Runtime = durationOr(spec.Runtime, DefaultPresetTime)
				j.RampTime = durationOr(spec.RampTime, DefaultPresetRamp)
			} else {
				j.Runtime = durationOr(spec.Runtime, 0)
				j.RampTime = durationOr(spec.RampTime, 0)
			}
			jobs = append(jobs, j)
		}
	}
	for _, sj := range spec.Jobs {
		j := Job{
			Name:      sj.Name,
			RW:        string(sj.RW),
			BlockSize: cmp.Or(sj.BlockSize, defaultBlockSize),
			IODepth:   ptr.Deref(sj.IODepth, defaultQueueDepth),
			NumJobs:   ptr.Deref(sj.NumJobs, defaultNumJobs),
			Direct:    sj.Direct == nil || *sj.Direct,
			Engine:    cmp.Or(string(sj.IOEngine), DefaultEngine),
			RWMixRead: sj.RWMixRead,
			RateIOPS:  ptr.Deref(sj.RateIOPS, 0),
			Size:      cmp.Or(sj.Size, spec.Size, DefaultSize),
			Runtime:   durationOr(sj.Runtime, durationOr(spec.Runtime, 0)),
			RampTime:  durationOr(sj.RampTime, durationOr(spec.RampTime, 0)),
			Sync:      sj.Sync,
			Fsync:     sj.Fsync,
		}
		jobs = append(jobs, j)
	}
	seen := map[string]bool{}
	for _, j := range jobs {
		if err := j.validate(); err != nil {
			return nil, err
		}
		if seen[j.Name] {
			return nil, fmt.Errorf("fio job %q appears twice (a preset job and an explicit job share the name?)", j.Name)
		}
		seen[j.Name] = true
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("fio needs a preset or at least one job")
	}
	return jobs, nil
}

func (j Job) validate() error {
	switch {
	case !namePattern.MatchString(j.Name):
		return fmt.Errorf("fio job name %q: use lower-case letters, digits and '-'", j.Name)
	case !rwValues[j.RW]:
		return fmt.Errorf("fio job %q: unknown rw %q", j.Name, j.RW)
	case !sizePattern.MatchString(j.BlockSize):
		return fmt.Errorf("fio job %q: blockSize %q is not a byte count like 4k or 1M", j.Name, j.BlockSize)
	case !sizePattern.MatchString(j.Size):
		return fmt.Errorf("fio job %q: size %q is not a byte count like 10G", j.Name, j.Size)
	case !engines[j.Engine]:
		return fmt.Errorf("fio job %q: unknown ioEngine %q", j.Name, j.Engine)
	case j.IODepth < 1 || j.NumJobs < 1:
		return fmt.Errorf("fio job %q: ioDepth and numJobs must be at least 1", j.Name)
	case j.RWMixRead != nil && j.RW != "rw" && j.RW != "readwrite" && j.RW != "randrw":
		return fmt.Errorf("fio job %q: rwMixRead applies only to mixed workloads (rw, readwrite, randrw)", j.Name)
	}
	return nil
}

// Targets are where fio does its I/O: directories (Filesystem volumes) or block
// devices. fio spreads each job over all of them.
type Targets struct {
	Dirs    []string
	Devices []string
}

// JobFile renders jobs as an fio job file. Jobs run one after the other
// (stonewall) and each job's processes are reported together (group_reporting),
// so every job yields one entry per direction.
func JobFile(jobs []Job, t Targets) (string, error) {
	if len(t.Dirs) == 0 && len(t.Devices) == 0 {
		return "", fmt.Errorf("fio needs at least one directory or device")
	}
	for _, p := range append(append([]string{}, t.Dirs...), t.Devices...) {
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, ":\n\r;=") {
			return "", fmt.Errorf("fio target %q must be an absolute path without ':', ';', '=' or newlines", p)
		}
	}
	var b strings.Builder
	b.WriteString("; generated by benchwright\n[global]\ngroup_reporting=1\nstonewall\nrandrepeat=0\n")
	for _, j := range jobs {
		fmt.Fprintf(&b, "\n[%s]\n", j.Name)
		fmt.Fprintf(&b, "filename=%s\n", filenames(j.Name, t))
		fmt.Fprintf(&b, "rw=%s\nbs=%s\niodepth=%d\nnumjobs=%d\nioengine=%s\ndirect=%d\n",
			j.RW, j.BlockSize, j.IODepth, j.NumJobs, j.Engine, boolInt(j.Direct))
		if len(t.Devices) == 0 {
			fmt.Fprintf(&b, "size=%s\n", j.Size)
		}
		if j.RWMixRead != nil {
			fmt.Fprintf(&b, "rwmixread=%d\n", *j.RWMixRead)
		}
		if j.RateIOPS > 0 {
			fmt.Fprintf(&b, "rate_iops=%d\n", j.RateIOPS)
		}
		if j.Runtime > 0 {
			fmt.Fprintf(&b, "time_based=1\nruntime=%s\n", seconds(j.Runtime))
		}
		if j.RampTime > 0 {
			fmt.Fprintf(&b, "ramp_time=%s\n", seconds(j.RampTime))
		}
		if j.Sync {
			b.WriteString("sync=1\n")
		}
		if j.Fsync > 0 {
			fmt.Fprintf(&b, "fsync=%d\n", j.Fsync)
		}
	}
	return b.String(), nil
}

// filenames lists one file per directory (or every device), colon-separated,
// so fio spreads the job's I/O over all volumes.
func filenames(job string, t Targets) string {
	if len(t.Devices) > 0 {
		return strings.Join(t.Devices, ":")
	}
	names := make([]string, len(t.Dirs))
	for i, d := range t.Dirs {
		names[i] = strings.TrimSuffix(d, "/") + "/" + fmt.Sprintf(jobFileNamePattern, job)
	}
	return strings.Join(names, ":")
}

func seconds(d time.Duration) string {
	return strconv.FormatInt(int64(d.Round(time.Second)/time.Second), 10) + "s"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func durationOr(d *metav1.Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return d.Duration
}
