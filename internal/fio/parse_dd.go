package fio

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// DDResult is one dd summary line: how many bytes dd copied and in how long.
type DDResult struct {
	Bytes        int64
	Seconds      float64
	ReportedRate string // the rate as dd printed it, e.g. "553 MB/s"
}

// DDError is a diagnostic line dd printed, such as
// "dd: error writing '/data/0/x': No space left on device".
type DDError struct {
	Line string
}

func (e *DDError) Error() string {
	return fmt.Sprintf("dd failed: %q", e.Line)
}

// ddSpace is a space, or a no-break space as French prints after the byte count.
const ddSpace = `[ \x{00A0}\x{202F}]`

var (
	// GNU coreutils, any age and locale: "N bytes (1.1 GB, 1.0 GiB) copied,
	// 1.94133 s, 553 MB/s", "N bytes (2.1 GB) copied, ...", "N bytes copied,
	// 1.7e-05 s, ...", "N Bytes (8,4 MB, 8,0 MiB) kopiert, 0,00137 s, ...",
	// "скопійовано N байтів (...), ...", "N 字节 (...) 已复制，0.0011 s，...";
	// BusyBox says "seconds".
	gnuSummary = regexp.MustCompile(`^(?:\S+ )?(\d+)` + ddSpace + `[^\d\s,()，][^,()，]*?(?: \([^()]*\)[^,()，]*)?[,，] ?` +
		`(\d+(?:[.,]\d+)?(?:[eE][-+]?\d+)?)` + ddSpace + `(?:s|seconds)[,，] ?(.*\S)`)
	// BSD and macOS: "N bytes transferred in 0.026832 secs (937899773 bytes/sec)".
	bsdSummary = regexp.MustCompile(`^(\d+) bytes transferred in (\d+(?:[.,]\d+)?) secs \((.+)\)`)
	// dd's diagnostics start with its name: "dd: error writing ...".
	ddDiagnostic = regexp.MustCompile(`^(?:\S*/)?dd: `)
)

// ParseDD reads every dd summary line in data (GNU coreutils in any locale,
// BusyBox, BSD and macOS). Progress lines of status=progress are skipped. A dd
// diagnostic other than a warning yields a *DDError quoting the first one,
// returned with the summaries read.
func ParseDD(data []byte) ([]DDResult, error) {
	var out []DDResult
	var ddErr *DDError
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\r\n")
		if strings.Contains(line, "\r") {
			continue // "\r"-separated status=progress updates
		}
		line = strings.TrimSpace(line)
		if ddDiagnostic.MatchString(line) {
			if ddErr == nil && !strings.Contains(line, "dd: warning:") {
				ddErr = &DDError{Line: line}
			}
			continue
		}
		m := gnuSummary.FindStringSubmatch(line)
		if m == nil {
			m = bsdSummary.FindStringSubmatch(line)
		}
		if m == nil {
			continue
		}
		r, err := ddResult(m[1], m[2], m[3])
		if err != nil {
			return nil, fmt.Errorf("parsing dd summary %q: %w", line, err)
		}
		out = append(out, r)
	}
	if ddErr != nil {
		return out, ddErr
	}
	if len(out) == 0 {
		return nil, results.ErrNoSamples
	}
	return out, nil
}

func ddResult(count, secs, rate string) (DDResult, error) {
	n, err := strconv.ParseInt(count, 10, 64)
	if err != nil {
		return DDResult{}, err
	}
	// Locales with a decimal comma print "1,94133 s".
	s, err := strconv.ParseFloat(strings.Replace(secs, ",", ".", 1), 64)
	if err != nil {
		return DDResult{}, err
	}
	return DDResult{Bytes: n, Seconds: s, ReportedRate: rate}, nil
}

// DDSamples turns one dd result into samples of test: <direction>_bw (MiB/s,
// none when the time is zero), <direction>_bytes and <direction>_seconds, or
// bw, bytes and seconds when direction is empty.
func DDSamples(r DDResult, test, direction string) []results.Sample {
	prefix := ""
	if direction != "" {
		prefix = direction + "_"
	}
	sample := func(metric, unit string, v float64) results.Sample {
		return results.Sample{Test: test, Metric: prefix + metric, Value: v, Unit: unit,
			Labels: map[string]string{results.LabelTool: "dd"}}
	}
	var out []results.Sample
	if bw := float64(r.Bytes) / r.Seconds / (1 << 20); r.Seconds > 0 && !math.IsInf(bw, 0) {
		out = append(out, sample("bw", "MiB/s", bw))
	}
	return append(out, sample("bytes", "B", float64(r.Bytes)), sample("seconds", "s", r.Seconds))
}
