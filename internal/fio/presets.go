package fio

import (
	"fmt"

	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// presetJobs are the named suites, expanded to explicit jobs.
var presetJobs = map[benchv1.FioPreset][]Job{
	// Seed 000 (and Google's PD benchmarking guide): 4k random IOPS at QD256,
	// 4k random latency at QD4, 1M sequential throughput at QD64 and the two
	// 4k mixes at QD256; all O_DIRECT through libaio.
	benchv1.FioPresetGCEPD: {
		{Name: "randread-4k-qd256", RW: "randread", BlockSize: "4k", IODepth: 256},
		{Name: "randwrite-4k-qd256", RW: "randwrite", BlockSize: "4k", IODepth: 256},
		{Name: "randread-4k-qd4", RW: "randread", BlockSize: "4k", IODepth: 4},
		{Name: "randwrite-4k-qd4", RW: "randwrite", BlockSize: "4k", IODepth: 4},
		{Name: "read-1m-qd64", RW: "read", BlockSize: "1M", IODepth: 64},
		{Name: "write-1m-qd64", RW: "write", BlockSize: "1M", IODepth: 64},
		{Name: "randrw-4k-qd256-r75", RW: "randrw", BlockSize: "4k", IODepth: 256, RWMixRead: ptr.To[int32](75)},
		{Name: "randrw-4k-qd256-r25", RW: "randrw", BlockSize: "4k", IODepth: 256, RWMixRead: ptr.To[int32](25)},
	},
	// Seed 004: the same 1 MiB sequential write and read through the page cache
	// (buffered), with O_SYNC (sync) and with O_DIRECT (direct). fio invalidates
	// the file's cached pages before each job, so buffered reads come from disk.
	benchv1.FioPresetIOModes: {
		{Name: "write-buffered", RW: "write", BlockSize: "1M", IODepth: 1, Engine: "psync", Direct: false},
		{Name: "write-sync", RW: "write", BlockSize: "1M", IODepth: 1, Engine: "psync", Direct: false, Sync: true},
		{Name: "write-direct", RW: "write", BlockSize: "1M", IODepth: 1, Engine: "psync", Direct: true},
		{Name: "read-buffered", RW: "read", BlockSize: "1M", IODepth: 1, Engine: "psync", Direct: false},
		{Name: "read-direct", RW: "read", BlockSize: "1M", IODepth: 1, Engine: "psync", Direct: true},
	},
}

// timeBasedPresets run for a fixed time; the others move a fixed size.
var timeBasedPresets = map[benchv1.FioPreset]bool{benchv1.FioPresetGCEPD: true}

func presetFor(name benchv1.FioPreset) ([]Job, bool, error) {
	jobs, ok := presetJobs[name]
	if !ok {
		return nil, false, fmt.Errorf("unknown fio preset %q (known: gce-pd, io-modes)", name)
	}
	out := make([]Job, len(jobs))
	for i, j := range jobs {
		out[i] = j
		if j.Engine == "" {
			out[i].Engine = DefaultEngine
			out[i].Direct = true
		}
		out[i].NumJobs = 1
	}
	return out, timeBasedPresets[name], nil
}
