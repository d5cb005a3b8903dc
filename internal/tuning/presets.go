package tuning

import (
	"fmt"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// The presets are tuned's profiles of the same names (redhat-performance/tuned,
// profiles/<name>/tuned.conf, with their include=), expanded to the settings
// the tuner can set and verify: [sysctl], [vm] transparent_hugepages and
// [cpu] governor. Left out, because they are not sysctls or files the tuner
// restores: [cpu] force_latency (a held /dev/cpu_dma_latency descriptor),
// energy_perf_bias, min_perf_pct; [disk] readahead; [bootloader] command
// lines; [scheduler] granularities (debugfs since Linux 5.13, gone with
// EEVDF); hpc-compute's vm.hugepages_treat_as_movable (no longer a sysctl).
//
// network-latency also carries seed 003's advice to "increase tcp_mem": the
// values of Google's own script for it (GoogleCloudPlatform/hpc-tools
// centos_7/mpi-tuning.sh --tcpmem), which sets the per-socket limits
// tcp_rmem and tcp_wmem rather than the global tcp_mem.

// layer is one file's values, in the file's order.
type layer struct {
	source string
	values [][2]string
}

// preset is layers applied in order: an included profile first.
type preset []layer

// settings is the preset's values, later layers overriding earlier ones.
func (p preset) settings() []Setting {
	var out []Setting
	index := map[string]int{}
	for _, l := range p {
		for _, kv := range l.values {
			s := Setting{Name: kv[0], Value: kv[1], Source: l.source}
			if i, ok := index[s.Name]; ok {
				out[i] = s
				continue
			}
			index[s.Name] = len(out)
			out = append(out, s)
		}
	}
	return out
}

// concat joins value lists into a new one.
func concat(lists ...[][2]string) [][2]string {
	var out [][2]string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func tuned(preset benchv1.TuningPreset, file string) string {
	if string(preset) == file {
		return fmt.Sprintf("preset %s (tuned %s/tuned.conf)", preset, file)
	}
	return fmt.Sprintf("preset %s (tuned %s/tuned.conf, included by %s)", preset, file, preset)
}

// latencyPerformance is tuned's latency-performance, included by
// network-latency and hpc-compute.
var latencyPerformance = [][2]string{
	{Governor, "performance"},
	{"vm.dirty_ratio", "10"},
	{"vm.dirty_background_ratio", "3"},
	{"vm.swappiness", "10"},
}

// throughputPerformance is tuned's throughput-performance, included by
// network-throughput.
var throughputPerformance = [][2]string{
	{Governor, "performance"},
	{"vm.dirty_ratio", "40"},
	{"vm.dirty_background_ratio", "10"},
	{"vm.swappiness", "10"},
}

// busyPolling is what network-latency and hpc-compute share: busy polling on
// socket reads and poll/select, TCP fast open for clients and servers.
var busyPolling = [][2]string{
	{"net.core.busy_read", "50"},
	{"net.core.busy_poll", "50"},
	{"net.ipv4.tcp_fastopen", "3"},
}

// seed003TCPMemory is seed 003's "increase tcp_mem settings".
var seed003TCPMemory = layer{
	source: "preset network-latency (seed 003 tcp_mem advice, values of GoogleCloudPlatform/hpc-tools mpi-tuning.sh --tcpmem)",
	values: [][2]string{
		{"net.ipv4.tcp_rmem", "4096 87380 16777216"},
		{"net.ipv4.tcp_wmem", "4096 16384 16777216"},
	},
}

var presets = map[benchv1.TuningPreset]preset{
	benchv1.PresetThroughputPerformance: {
		{source: tuned(benchv1.PresetThroughputPerformance, "throughput-performance"), values: throughputPerformance},
	},
	benchv1.PresetNetworkThroughput: {
		{source: tuned(benchv1.PresetNetworkThroughput, "throughput-performance"), values: throughputPerformance},
		{source: tuned(benchv1.PresetNetworkThroughput, "network-throughput"), values: [][2]string{
			{"net.ipv4.tcp_rmem", "4096 131072 16777216"},
			{"net.ipv4.tcp_wmem", "4096 16384 16777216"},
		}},
	},
	benchv1.PresetNetworkLatency: {
		{source: tuned(benchv1.PresetNetworkLatency, "latency-performance"), values: latencyPerformance},
		{source: tuned(benchv1.PresetNetworkLatency, "network-latency"), values: concat(
			[][2]string{{THP, "never"}},
			busyPolling,
			[][2]string{
				{"kernel.numa_balancing", "0"},
				{"kernel.hung_task_timeout_secs", "600"},
				{"kernel.nmi_watchdog", "0"},
				{"vm.stat_interval", "10"},
				{"kernel.timer_migration", "0"},
			})},
		seed003TCPMemory,
	},
	benchv1.PresetHPCCompute: {
		{source: tuned(benchv1.PresetHPCCompute, "latency-performance"), values: latencyPerformance},
		{source: tuned(benchv1.PresetHPCCompute, "hpc-compute"), values: concat(
			[][2]string{
				{THP, "always"},
				{"vm.min_free_kbytes", "135168"},
				{"vm.zone_reclaim_mode", "1"},
				{"kernel.numa_balancing", "0"},
			},
			busyPolling)},
	},
}

// fromPreset tells whether a setting is a preset's own, at the preset's
// value: tuned's figures chosen here (hpc-compute's vm.min_free_kbytes), not
// a submitter's, so the allow-list does not apply to it.
func fromPreset(s Setting) bool {
	if s.Source == SourceSpec {
		return false
	}
	for _, p := range presets {
		for _, ps := range p.settings() {
			if ps.Name == s.Name && ps.Value == s.Value {
				return true
			}
		}
	}
	return false
}
