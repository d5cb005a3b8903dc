package page

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// seriesStart is when the test records' series start.
const seriesStart = int64(1_700_000_000_000)

// at is a time of the test records, s seconds after they start.
func at(s float64) time.Time { return time.UnixMilli(seriesStart + int64(s*1000)) }

// testRecord is a pod's record of n one-second points: busier in the
// middle half, vda with it, loop0 idle, eth0 steady; a note at 5 s.
func testRecord(pod string, n int, phases ...sampler.Phase) sampler.Record {
	h := sampler.Header{V: sampler.Version, Start: seriesStart, Interval: 1, Budget: sampler.DefaultBudget,
		Fields: map[string][]string{"cpu": sampler.CPUFields, "cores": sampler.CoreFields, "mem": sampler.MemFields,
			"psi": sampler.PSIFields, "disk": sampler.DiskFields, "net": sampler.NetFields, "pod": sampler.PodFields}}
	var pts []sampler.Point
	for i := 1; i <= n; i++ {
		busy := 20.0
		if i > n/4 && i < n*3/4 {
			busy = 60
		}
		pts = append(pts, sampler.Point{T: seriesStart + int64(i)*1000, Dt: 1,
			CPU:   []float64{busy, 0, 5, 2, 0, 0, 0, 93 - busy},
			Cores: [][]float64{{busy + 30, 0, 5, 0, 0, 0, 0}, {busy, 0, 0, 0, 0, 0, 0}},
			Disks: map[string][]float64{"vda": {1000, 0, 4, 0, busy * 1.6, 1}, "loop0": {0, 0, 0, 0, 0, 0}},
			Nets:  map[string][]float64{"eth0": {1, 2, 0, 0, 0, 0}},
		})
	}
	return sampler.Record{Pod: pod, Node: "n1", Phases: phases, Series: sampler.Series{Header: h, Points: pts,
		Notes: []sampler.Note{{T: seriesStart + 5000, Note: "interval doubled to 2s"}}}}
}

func recordJSON(t testing.TB, rec sampler.Record) []byte {
	t.Helper()
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pages are a report's HTML and Markdown.
func pages(t *testing.T, runs []compare.Run) (html, md string) {
	t.Helper()
	rep, err := New(runs, Options{Title: "series"})
	if err != nil {
		t.Fatal(err)
	}
	var page, m bytes.Buffer
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	if err := rep.Markdown(&m); err != nil {
		t.Fatal(err)
	}
	keep(t, strings.ReplaceAll(t.Name(), "/", "-")+".html", page.Bytes())
	return page.String(), m.String()
}

var seriesRE = regexp.MustCompile(`(?s)<figure class="series">(.*?)</figure>`)

// A `benchwright run` results directory: its records drawn, what is not
// one skipped with a note, the run's other files left alone.
func TestReadMonitorsFromADirectory(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "fio-c2")
	writeSamples(t, filepath.Join(run, source.SamplesFile), storageSamples()[:12])
	phases := []sampler.Phase{sampler.NewPhase("randread-4k", at(2), at(8)), sampler.NewPhase("write", at(8), at(11))}
	writeFile(t, filepath.Join(run, "monitor", "0", "local.json"), recordJSON(t, testRecord("local", 12, phases...)))
	incomplete := testRecord("local", 12, phases...)
	incomplete.Restarts = 1
	incomplete.Series.Problems = []string{"2× a point not after the one before"}
	writeFile(t, filepath.Join(run, "monitor", "1", "local.json"), recordJSON(t, incomplete))
	writeFile(t, filepath.Join(run, "monitor", "2", "local.json"), []byte("\x00garbage"))
	writeFile(t, filepath.Join(run, "monitor", "notes.txt"), []byte("not a record"))
	if err := syscall.Mkfifo(filepath.Join(run, "monitor", "2", "pipe.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte(" "), compare.MaxRecordBytes+1)
	writeFile(t, filepath.Join(run, "monitor", "3", "big.json"), big)

	ctx := context.Background()
	src := source.Files{dir}
	runs, err := compare.Load(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := compare.ReadMonitors(ctx, src, runs); err != nil {
		t.Fatal(err)
	}
	m := runs[0].Monitor
	if len(m.Records) != 2 || m.Records[0].Rep != 0 || m.Records[1].Rep != 1 || m.Left != 0 {
		t.Fatalf("records %+v, left %d: want repetitions 0 and 1", m.Records, m.Left)
	}
	r := m.Records[0]
	if r.Incomplete != "" || m.Records[1].Incomplete != "the sampler restarted 1 time(s), the series is its last run's; 2× a point not after the one before" {
		t.Errorf("incomplete: %q, %q", r.Incomplete, m.Records[1].Incomplete)
	}
	if len(r.Phases) != 2 || r.Phases[0] != (compare.PhaseSpan{Test: "randread-4k", From: 2, To: 8}) || r.Phases[1] != (compare.PhaseSpan{Test: "write", From: 8, To: 11}) {
		t.Errorf("phases %+v", r.Phases)
	}
	if len(r.Disks) != 1 || r.Disks[0].Name != "vda" || len(r.Nets) != 1 || len(r.CPU) != 12 || r.CPU[5].Y != 65 || r.Busiest[5].Y != 95 {
		t.Errorf("lines: cpu %v, busiest %v, disks %+v, nets %+v", r.CPU, r.Busiest, r.Disks, r.Nets)
	}
	notes := strings.Join(m.Notes, "\n")
	for _, want := range []string{"monitor/2/local.json skipped: not a sampler record", "monitor/3/big.json skipped: larger than 16 MiB"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes do not say %q:\n%s", want, notes)
		}
	}
	if len(m.Notes) != 2 {
		t.Errorf("notes %q: want the garbage and the large file only", m.Notes)
	}

	html, md := pages(t, runs)
	figs := seriesRE.FindAllStringSubmatch(html, -1)
	if len(figs) != 2 {
		t.Fatalf("%d series figures, want 2", len(figs))
	}
	texts := svgTexts(figs[0][1])
	for _, want := range []string{"repetition 1: pod local on node n1", "randread-4k", "write", "node CPU", "busiest core", "disk vda",
		"net eth0", "node CPU utilisation (%)", "disk utilisation (%)", "network (MB/s, received + sent)", "seconds from the series' start", "1"} {
		if !texts[want] {
			t.Errorf("the first series has no text %q", want)
		}
	}
	if texts["disk loop0"] {
		t.Error("an idle disk is drawn")
	}
	if strings.Contains(figs[0][1], "incomplete") || !strings.Contains(figs[1][1], `<p class="incomplete">incomplete: the sampler restarted 1 time(s)`) {
		t.Error("the incomplete series is not said, or the complete one is")
	}
	if !strings.Contains(figs[0][1], "Notes (dashed): 1. at 5.0 s, interval doubled to 2s.") {
		t.Errorf("the caption does not list the note:\n%s", figs[0][1])
	}
	checkHTML(t, html, plan(runs))
	for _, want := range []string{"Series (drawn over time in the HTML report):", "- repetition 1: pod local on node n1: 12 point(s), one every 1 s; tests: randread-4k 2.0–8.0 s, write 8.0–11.0 s; notes: at 5.0 s interval doubled to 2s.",
		"**incomplete:** the sampler restarted", "- monitor/3/big.json skipped: larger than 16 MiB"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown has no %q", want)
		}
	}
}

// An artifact-store prefix, read by URL: monitor/<rep>/<pod>.json beside
// the run's samples.ndjson.
func TestReadMonitorsFromAStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := artifacts.Open(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	loc := artifacts.Location{Namespace: "seeds", Kind: "StorageBenchmark", Name: "fio-c2", UID: "uid-fio-c2"}
	var nd bytes.Buffer
	if err := results.WriteNDJSON(&nd, storageSamples()[:12]); err != nil {
		t.Fatal(err)
	}
	key, _ := loc.SamplesNDJSON()
	put := func(key string, data []byte) {
		if err := store.Put(ctx, key, data, ""); err != nil {
			t.Fatal(err)
		}
	}
	put(key, nd.Bytes())
	for rep, pod := range []string{"fio-c2-0-abc", "fio-c2-1-def"} {
		k, _ := loc.Monitor(rep+1, pod)
		put(k, recordJSON(t, testRecord(pod, 10, sampler.NewPhase("randread-4k", at(1), at(9)))))
	}
	_ = store.Close()
	src := source.Sources([]string{"file://" + dir})
	runs, err := compare.Load(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := compare.ReadMonitors(ctx, src, runs); err != nil {
		t.Fatal(err)
	}
	m := runs[0].Monitor
	if len(m.Records) != 2 || m.Records[0].Pod != "fio-c2-0-abc" || m.Records[1].Rep != 2 || len(m.Notes) != 0 {
		t.Fatalf("monitor %+v", m)
	}
	html, _ := pages(t, runs)
	if n := len(seriesRE.FindAllString(html, -1)); n != 2 {
		t.Errorf("%d series figures, want 2", n)
	}
}

// A record is hostile input: HTML in a test, a pod or a note is text,
// escaped on the page and in the SVG; a device name that is not one loses
// its point, and the series says it is incomplete.
func TestHostileRecords(t *testing.T) {
	dir := t.TempDir()
	writeSamples(t, filepath.Join(dir, source.SamplesFile), storageSamples()[:12])
	const evil = `<script>alert("x")</script>`
	rec := testRecord("pod"+evil, 10, sampler.NewPhase("read"+evil, at(1), at(9)))
	rec.Series.Notes[0].Note = "note" + evil
	rec.Series.Points[3].Disks["<b>vda</b>"] = []float64{1, 1, 1, 1, 1, 1}
	writeFile(t, filepath.Join(dir, "monitor", "0", "evil.json"), recordJSON(t, rec))
	ctx := context.Background()
	runs, err := compare.Load(ctx, source.Files{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := compare.ReadMonitors(ctx, source.Files{dir}, runs); err != nil {
		t.Fatal(err)
	}
	if len(runs[0].Monitor.Records) != 1 {
		t.Fatalf("monitor %+v", runs[0].Monitor)
	}
	r := runs[0].Monitor.Records[0]
	if r.Points != 9 || !strings.Contains(r.Incomplete, "1× a point that has disk or network rates out of range") {
		t.Errorf("%d points, incomplete %q: want the point with the bad device left out, and said", r.Points, r.Incomplete)
	}
	html, md := pages(t, runs)
	if strings.Contains(html, "<script") || strings.Contains(html, "<b>") {
		t.Error("a record's text reached the page unescaped")
	}
	texts := svgTexts(seriesRE.FindString(html))
	if !texts["read"+evil] && !texts["read<script>alert(…"] && !texts["read<…"] {
		t.Errorf("the test's name is not drawn as text: %v", texts)
	}
	if strings.Contains(md, "<script") {
		t.Error("a record's text reached the Markdown as HTML")
	}
	if !strings.Contains(md, "&lt;script>") {
		t.Error("the Markdown lost the escaped name")
	}
}

// At most MaxRecordsPerRun records per run, the first by repetition; a
// long series is thinned to a bounded line.
func TestMonitorCapAndThinning(t *testing.T) {
	dir := t.TempDir()
	writeSamples(t, filepath.Join(dir, source.SamplesFile), storageSamples()[:12])
	for rep := range compare.MaxRecordsPerRun + 2 {
		n := 10
		if rep == 0 {
			n = 5000
		}
		writeFile(t, filepath.Join(dir, "monitor", fmt.Sprint(rep), "local.json"),
			recordJSON(t, testRecord("local", n, sampler.NewPhase("read", at(1), at(float64(n-1))))))
	}
	ctx := context.Background()
	runs, err := compare.Load(ctx, source.Files{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := compare.ReadMonitors(ctx, source.Files{dir}, runs); err != nil {
		t.Fatal(err)
	}
	m := runs[0].Monitor
	if len(m.Records) != compare.MaxRecordsPerRun || m.Left != 2 || m.Records[5].Rep != 5 {
		t.Fatalf("%d records, %d left", len(m.Records), m.Left)
	}
	long := m.Records[0]
	if !long.Thinned || len(long.CPU) > 2*compare.SeriesBuckets || len(long.Disks[0].XYs) > 2*compare.SeriesBuckets || long.Points != 5000 {
		t.Errorf("thinned %v: %d CPU points, %d disk points of %d", long.Thinned, len(long.CPU), len(long.Disks[0].XYs), long.Points)
	}
	peak := 0.0
	for _, xy := range long.CPU {
		peak = max(peak, xy.Y)
	}
	if peak != 65 {
		t.Errorf("the thinned line's peak is %g, want 65", peak)
	}
	html, _ := pages(t, runs)
	if !strings.Contains(html, "2 more series not drawn: a report draws at most 6 per run") {
		t.Error("the page does not say what it left out")
	}
}

// A network benchmark's pairs are runs of one input: each draws the records
// of its pair's pods, with its pair's phases only.
func TestMonitorPairs(t *testing.T) {
	dir := t.TempDir()
	var samples []results.Sample
	for _, pair := range []string{"n0:c0 -> n1:c0", "n0:c1 -> n1:c1"} {
		s := sample("net", "m", "tcp", "bandwidth", "MB/s", "", 0, 100)
		s.Kind = "NetworkBenchmark"
		s.Labels[netbench.LabelPair] = pair
		samples = append(samples, s)
	}
	writeSamples(t, filepath.Join(dir, source.SamplesFile), samples)
	phase := func(pair string, from, to float64) sampler.Phase {
		ph := sampler.NewPhase("tcp "+pair, at(from), at(to))
		ph.Labels = map[string]string{netbench.LabelPair: pair, sampler.LabelSide: "server"}
		return ph
	}
	writeFile(t, filepath.Join(dir, "monitor", "0", "server.json"), recordJSON(t, testRecord("server", 10,
		phase("n0:c0 -> n1:c0", 1, 4), phase("n0:c1 -> n1:c1", 5, 8))))
	writeFile(t, filepath.Join(dir, "monitor", "0", "client-0.json"), recordJSON(t, testRecord("client-0", 10, phase("n0:c0 -> n1:c0", 1, 4))))
	ctx := context.Background()
	runs, err := compare.Load(ctx, source.Files{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := compare.ReadMonitors(ctx, source.Files{dir}, runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want a run per pair", len(runs))
	}
	first, second := runs[0].Monitor.Records, runs[1].Monitor.Records
	if len(first) != 2 || len(second) != 1 || second[0].Pod != "server" {
		t.Fatalf("records: %+v and %+v", first, second)
	}
	if len(second[0].Phases) != 1 || second[0].Phases[0].Test != "tcp n0:c1 -> n1:c1" {
		t.Errorf("the second pair's phases: %+v", second[0].Phases)
	}
}

// A source that keeps no series (parsed files, a fetched samples.ndjson)
// has none, and that is no error.
func TestReadMonitorsWithoutSeries(t *testing.T) {
	runs := group(t, storageSamples())
	if err := compare.ReadMonitors(context.Background(), source.Fetched{Name: "fio"}, runs); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if len(r.Monitor.Records)+len(r.Monitor.Notes)+r.Monitor.Left != 0 {
			t.Errorf("%s: %+v", r.Name, r.Monitor)
		}
	}
}
