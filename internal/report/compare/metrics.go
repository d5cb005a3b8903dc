package compare

import (
	"math"
	"strconv"

	"github.com/benchwright/benchwright/internal/results"
)

// unitScale is each known unit's dimension and its factor to the dimension's
// base unit (bytes/s, seconds, operations/s), for exact conversions between
// runs whose tools print different units.
var unitScale = map[string]struct {
	dim    string
	factor float64
}{
	"B/s": {"B/s", 1}, "KB/s": {"B/s", 1e3}, "MB/s": {"B/s", 1e6}, "GB/s": {"B/s", 1e9},
	"KiB/s": {"B/s", 1 << 10}, "MiB/s": {"B/s", 1 << 20}, "GiB/s": {"B/s", 1 << 30},
	"Mbit/s": {"B/s", 1e6 / 8}, "Gbit/s": {"B/s", 1e9 / 8},
	"ns": {"s", 1e-9}, "us": {"s", 1e-6}, "µs": {"s", 1e-6}, "ms": {"s", 1e-3}, "s": {"s", 1},
	"IOPS": {"op/s", 1}, "ops/s": {"op/s", 1},
}

// reportUnits are the units a report writes a tool's unit in, so that a
// metric has one unit everywhere: iperf3's Gbit/s are MB/s, as the
// NetworkBenchmark's status and kubectl get give its peak bandwidth.
var reportUnits = map[string]string{"Mbit/s": "MB/s", "Gbit/s": "MB/s"}

// InReportUnit is v in unit as the report writes it (see reportUnits).
func InReportUnit(v float64, unit string) (float64, string) {
	to, ok := reportUnits[unit]
	if !ok {
		return v, unit
	}
	return Convert(v, unit, to), to
}

// Quantity is what a unit measures; units that convert share one, any other
// unit is its own.
func Quantity(unit string) string {
	if u, ok := unitScale[unit]; ok {
		return u.dim
	}
	return unit
}

// Convert expresses v, in unit from, in unit to (same dimension).
func Convert(v float64, from, to string) float64 {
	if from == to {
		return v
	}
	f, okf := unitScale[from]
	t, okt := unitScale[to]
	if !okf || !okt || f.dim != t.dim {
		return v
	}
	return v * f.factor / t.factor
}

// msgSize is a msg_size label as a number of bytes, or -1 when absent or not
// a number.
func msgSize(labels map[string]string) float64 {
	v, ok := labels[results.LabelMsgSize]
	if !ok {
		return -1
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return -1
	}
	return n
}

// FormatBytes prints a message size compactly: 512 -> "512", 4096 -> "4K",
// 1048576 -> "1M" (powers of 1024, as OSU and IMB sizes are).
func FormatBytes(b float64) string {
	for _, u := range []struct {
		suffix string
		size   float64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if b >= u.size && math.Mod(b, u.size) == 0 {
			return strconv.FormatFloat(b/u.size, 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(b, 'f', -1, 64)
}

// FormatSize prints a message size with its unit: 8 -> "8 B", 4096 -> "4 KiB".
func FormatSize(b float64) string {
	s := FormatBytes(b)
	if n := len(s); n > 0 && s[n-1] >= 'A' && s[n-1] <= 'Z' {
		return s[:n-1] + " " + s[n-1:] + "iB"
	}
	return s + " B"
}
