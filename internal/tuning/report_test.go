package tuning

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReportLineRoundTrip(t *testing.T) {
	first := Report{Node: "n1", Profile: "p", Generation: 2, Phase: PhaseApplied, Tuned: true,
		Time:     time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Settings: []SettingReport{{Name: "net.ipv4.tcp_rmem", Requested: "4096 87380 16777216", Observed: "4096 87380 16777216", Original: "4096 131072 6291456", OK: true}},
	}
	second := first
	second.Phase, second.Tuned, second.Refused = PhaseRestored, false, []Refusal{{Name: "kernel.panic", Reason: "not allowed"}}
	line := ReportLine(first)
	if strings.Contains(line, "\n") || !strings.HasPrefix(line, ReportPrefix) {
		t.Fatalf("not one prefixed line: %q", line)
	}
	log := "starting\n" +
		// A CRI log line carries a timestamp and stream before the text.
		"2025-01-02T03:04:05.1Z stdout F " + line + "\n" +
		"some warning\n" +
		ReportLine(second) + "\n" +
		ReportLine(first)[:40] // the last line cut while being written
	got, err := ParseReports([]byte(log))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(second, got); d != "" {
		t.Errorf("latest report (-want +got):\n%s", d)
	}
}

func TestParseReportsWithoutReport(t *testing.T) {
	for _, log := range []string{"", "hello\n", ReportPrefix + "{not json"} {
		if _, err := ParseReports([]byte(log)); !errors.Is(err, ErrNoReport) {
			t.Errorf("ParseReports(%q) = %v, want ErrNoReport", log, err)
		}
	}
}

func FuzzParseReports(f *testing.F) {
	f.Add([]byte(ReportLine(Report{Node: "n", Settings: []SettingReport{{Name: "a"}}})))
	f.Add([]byte(ReportPrefix + `{"settings":[{"name":1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseReports(b)
	})
}
