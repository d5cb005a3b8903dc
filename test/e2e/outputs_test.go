//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/tuning"
	"github.com/benchwright/benchwright/test/fixtures"
)

// What the simulated containers print: real tool output from the shared
// fixtures (see their SOURCES.md), fitted to the benchmark only where the
// manager checks it (fio's job names, the launcher's step markers). The
// expected figures are read from the same files here, independently of the
// parsers under test.

// fixture reads a file of the shared fixtures.
func fixture(name string) ([]byte, error) {
	dir, ok := fixtures.Dir()
	if !ok {
		return nil, fmt.Errorf("fixtures not found at %s", dir)
	}
	return os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
}

// fioFixtures holds, by fio rw mode, a real fio JSON report whose first job
// stands for every job of that mode.
var fioFixtures = map[string]string{
	"read":      "fio/fio3.33_randread_4k_qd32_nj1_nvme.json",
	"randread":  "fio/fio3.33_randread_4k_qd32_nj1_nvme.json",
	"write":     "fio/fio3.33_randwrite_4k_qd8_numjobs8_nvme.json",
	"randwrite": "fio/fio3.33_randwrite_4k_qd8_numjobs8_nvme.json",
	"rw":        "fio/fio3.33_randrw65_4k_qd16_nj1_nvme.json",
	"readwrite": "fio/fio3.33_randrw65_4k_qd16_nj1_nvme.json",
	"randrw":    "fio/fio3.33_randrw65_4k_qd16_nj1_nvme.json",
}

// fioFigures are one fio job's figures as its report prints them.
type fioFigures struct {
	ReadIOPS, WriteIOPS float64
	// ReadKiBps, WriteKiBps are fio's "bw", KiB/s.
	ReadKiBps, WriteKiBps float64
}

// fioOutput is a fio JSON report with one job per job of spec: the first job
// of the fixture for its rw mode, renamed. The fixture's text is kept as fio
// printed it (key order, number format), only cut and joined. It returns the
// figures each job should get.
func fioOutput(spec *benchv1.FioSpec) ([]byte, map[string]fioFigures, error) {
	jobs, err := fio.Expand(spec)
	if err != nil {
		return nil, nil, err
	}
	var head, tail string
	var reports []string
	want := map[string]fioFigures{}
	for _, j := range jobs {
		name, ok := fioFixtures[j.RW]
		if !ok {
			return nil, nil, fmt.Errorf("no fio fixture for rw=%s (job %s)", j.RW, j.Name)
		}
		data, err := fixture(name)
		if err != nil {
			return nil, nil, err
		}
		text := string(data)
		// The jobs array and its first element, by bracket matching.
		open := regexp.MustCompile(`"jobs"\s*:\s*\[`).FindStringIndex(text)
		if open == nil {
			return nil, nil, fmt.Errorf("%s: no jobs array", name)
		}
		arrayEnd := closing(text, open[1]-1)
		first := strings.IndexByte(text[open[1]:], '{') + open[1]
		firstEnd := closing(text, first)
		if arrayEnd < 0 || firstEnd < 0 {
			return nil, nil, fmt.Errorf("%s: unbalanced jobs array", name)
		}
		job := text[first : firstEnd+1]
		renamed := jobName.ReplaceAllLiteralString(job, `"jobname" : `+strconv.Quote(j.Name))
		if renamed == job && !strings.Contains(job, strconv.Quote(j.Name)) {
			return nil, nil, fmt.Errorf("%s: no jobname in its first job", name)
		}
		reports = append(reports, renamed)
		if head == "" {
			head, tail = text[:open[1]]+"\n    ", "\n  "+text[arrayEnd:]
		}
		var d struct {
			Jobs []map[string]any `json:"jobs"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&d); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		want[j.Name] = fioFigures{
			ReadIOPS: number(d.Jobs[0], "read", "iops"), WriteIOPS: number(d.Jobs[0], "write", "iops"),
			ReadKiBps: number(d.Jobs[0], "read", "bw"), WriteKiBps: number(d.Jobs[0], "write", "bw"),
		}
	}
	return []byte(head + strings.Join(reports, ",\n    ") + tail), want, nil
}

var jobName = regexp.MustCompile(`"jobname"\s*:\s*"(?:[^"\\]|\\.)*"`)

// closing is the index of the bracket that closes the one at open, counting
// brackets outside strings; -1 if it never closes.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i
			}
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

func number(m map[string]any, keys ...string) float64 {
	var v any = m
	for _, k := range keys {
		v = v.(map[string]any)[k]
	}
	f, err := v.(json.Number).Float64()
	if err != nil {
		panic(err)
	}
	return f
}

// ddFixtures: GNU dd's summaries, one for writes and one for reads.
const (
	ddWriteFixture = "dd/dd_gnu_1GiB_oflag_direct_notable-notes.txt"
	ddReadFixture  = "dd/dd_gnu_old_format_noGiB_with_time_nersc.txt"
)

func ddFixture(op benchv1.DDOperation) string {
	if op == "read" {
		return ddReadFixture
	}
	return ddWriteFixture
}

var ddSummary = regexp.MustCompile(`(?m)^(\d+) bytes .*copied, ([0-9.]+) s, `)

// ddMiBps is the bandwidth of a dd fixture: bytes / seconds in MiB/s.
func ddMiBps(name string) (float64, error) {
	data, err := fixture(name)
	if err != nil {
		return 0, err
	}
	m := ddSummary.FindSubmatch(data)
	if m == nil {
		return 0, fmt.Errorf("%s: no dd summary line", name)
	}
	n, _ := strconv.ParseFloat(string(m[1]), 64)
	s, _ := strconv.ParseFloat(string(m[2]), 64)
	return n / s / (1 << 20), nil
}

// osuFixtures: the real output of each OSU program, and IMB-MPI1's.
var osuFixtures = map[string]string{
	"osu_latency":   "osu/osu_latency_v5.8_gke_flux.txt",
	"osu_bw":        "osu/osu_bw_v5.8_azure_aks.txt",
	"osu_bibw":      "osu/osu_bibw_v5.7.1_pcluster_p5_openmpi.txt",
	"osu_allreduce": "osu/osu_allreduce_v5.8_gke_32nodes.txt",
	"osu_alltoall":  "osu/osu_alltoall_v5.7.1_pcluster_c5n_openmpi.txt",
	"IMB-MPI1":      "imb/imb_mpi1_v4.1_full_2proc_aarch64.txt",
}

// launcherOutput is what `benchwright steps` prints on the launcher: each
// step of the launch between its header and trailer, the step's output being
// the fixture of its program.
func launcherOutput(l *mpi.Launch) ([]byte, error) {
	var b bytes.Buffer
	n := len(l.Steps)
	for i, s := range l.Steps {
		name, ok := osuFixtures[path.Base(s.Program)]
		if !ok {
			return nil, fmt.Errorf("no fixture for MPI program %s", s.Program)
		}
		data, err := fixture(name)
		if err != nil {
			return nil, err
		}
		b.WriteString(mpi.StepHeader(i+1, n, s.Argv))
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteString(mpi.StepTrailer(i+1, n, 0, 12345*time.Millisecond))
	}
	return b.Bytes(), nil
}

// osuTable reads an OSU fixture's table: message size -> the first figure.
func osuTable(test string) (map[int64]float64, error) {
	data, err := fixture(osuFixtures[test])
	if err != nil {
		return nil, err
	}
	table := map[int64]float64{}
	inTable := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 1 && f[0] == "#" && f[1] == "Size":
			inTable = true
		case inTable && len(f) >= 2:
			size, err1 := strconv.ParseInt(f[0], 10, 64)
			v, err2 := strconv.ParseFloat(f[1], 64)
			if err1 != nil || err2 != nil {
				inTable = false
				continue
			}
			table[size] = v
		}
	}
	if len(table) == 0 {
		return nil, fmt.Errorf("%s: no table", osuFixtures[test])
	}
	return table, nil
}

// tunerOutput is a tuner's log on a node where every setting took: one
// report line, as cmd/tuner prints it.
func tunerOutput(cfg tuning.Config, node string) []byte {
	r := tuning.Report{
		Node: node, Profile: cfg.Profile, Generation: cfg.Generation,
		Phase: tuning.PhaseApplied, Tuned: true, Time: time.Now().UTC(),
	}
	if cfg.Restore { // a deleted profile's tuner confirms the restore
		r.Phase, r.Tuned = tuning.PhaseRestored, false
		return []byte(tuning.ReportLine(r) + "\n")
	}
	for _, s := range cfg.Settings {
		r.Settings = append(r.Settings, tuning.SettingReport{
			Name: s.Name, Requested: s.Value, Observed: s.Value, Original: "0", OK: true,
		})
	}
	return []byte("benchwright-tuner: applying " + strconv.Itoa(len(cfg.Settings)) + " settings\n" + tuning.ReportLine(r) + "\n")
}

// writeCRILog writes out as a container log file in the CRI format kwok
// serves: one "<RFC3339Nano> stdout F <line>" per line.
func writeCRILog(file string, out []byte) error {
	var b bytes.Buffer
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		fmt.Fprintf(&b, "%s stdout F %s\n", ts, line)
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}
