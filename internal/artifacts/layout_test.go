package artifacts

import (
	"strings"
	"testing"
)

func TestLayoutKeys(t *testing.T) {
	l := Location{Namespace: "team-a", Kind: "StorageBenchmark", Name: "fio-1", UID: "0f3c"}
	const p = "team-a/StorageBenchmark/fio-1/0f3c/"
	for _, c := range []struct {
		key  func() (string, error)
		want string
	}{
		{l.Prefix, p},
		{l.SamplesNDJSON, p + "samples.ndjson"},
		{l.SamplesCSV, p + "samples.csv"},
		{l.Summary, p + "summary.json"},
		{l.Nodes, p + "nodes.json"},
		{l.Report, p + "report.html"},
		{l.JobFile, p + "job.fio"},
		{l.Steps, p + "steps.json"},
		{func() (string, error) { return l.RawLog(2, "fio-1-worker-0") }, p + "raw/2/fio-1-worker-0.log"},
	} {
		got, err := c.key()
		if err != nil || got != c.want {
			t.Errorf("got %q, %v; want %q", got, err, c.want)
		}
	}
}

func TestLayoutRejectsEscapes(t *testing.T) {
	ok := Location{Namespace: "ns", Kind: "Bench", Name: "run", UID: "uid"}
	with := func(f func(*Location)) Location { l := ok; f(&l); return l }
	for _, c := range []struct {
		name string
		key  func() (string, error)
		want string // the element the error must name
	}{
		{"slash in namespace", with(func(l *Location) { l.Namespace = "a/b" }).Prefix, `namespace "a/b"`},
		{"backslash in kind", with(func(l *Location) { l.Kind = `a\b` }).Summary, "kind"},
		{"dot-dot name", with(func(l *Location) { l.Name = ".." }).Report, `name is ".."`},
		{"dot uid", with(func(l *Location) { l.UID = "." }).Nodes, "uid"},
		{"empty uid", with(func(l *Location) { l.UID = "" }).SamplesCSV, "uid is empty"},
		{"dot-dot in name", with(func(l *Location) { l.Name = "../../x" }).SamplesNDJSON, "name"},
		{"slash in pod", func() (string, error) { return ok.RawLog(0, "../secret") }, "pod"},
		{"dot-dot pod", func() (string, error) { return ok.RawLog(0, "..") }, "pod"},
		{"negative repetition", func() (string, error) { return ok.RawLog(-1, "p") }, "repetition -1"},
		{"bad location in RawLog", func() (string, error) { return with(func(l *Location) { l.Namespace = "" }).RawLog(0, "p") }, "namespace is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			key, err := c.key()
			if err == nil {
				t.Fatalf("got key %q, want an error", key)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestCampaignReportKey(t *testing.T) {
	key, err := CampaignReport("perf", "s0-c3-vs-c2-x7k2p", "html")
	if err != nil || key != "perf/Campaign/s0-c3-vs-c2-x7k2p/report.html" {
		t.Fatalf("CampaignReport = %q, %v", key, err)
	}
	for _, bad := range []struct{ ns, name, format string }{
		{"perf", "../etc", "html"}, {"perf", "a/b", "md"}, {"", "x", "csv"}, {"perf", "x", "pdf"}, {"..", "x", "html"},
	} {
		if key, err := CampaignReport(bad.ns, bad.name, bad.format); err == nil {
			t.Errorf("CampaignReport(%q, %q, %q) = %q, want an error", bad.ns, bad.name, bad.format, key)
		}
	}
}
