package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	c2 := writeRun(t, dir, "fio-c2", "c2-standard-60", 1, 100000, 98000, 102000)
	c3 := writeRun(t, dir, "fio-c3", "c3-highcpu-176", 1, 260000, 258000, 262000)
	out, _, err := runCLI(t, "compare", c2, c3)
	if err != nil {
		t.Fatal(err)
	}
	// The runs differ in their machine type: the comparison is along it.
	for _, want := range []string{"machine_type: c3-highcpu-176 / c2-standard-60", "c3-highcpu-176 speedup vs c2-standard-60", "2.60x"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCLI(t, "compare", "--baseline", "machine_type=c3-highcpu-176", c2, c3)
	if err != nil || !strings.Contains(out, "c2-standard-60 speedup vs c3-highcpu-176") || !strings.Contains(out, "0.385x (2.60x slower)") {
		t.Errorf("--baseline machine_type=c3-highcpu-176: %v\n%s", err, out)
	}
	for arg, want := range map[string]string{
		"zone=a":          "--baseline: baseline zone=a: the runs have no dimension zone (they have: machine_type)",
		"machine_type=n2": "n2 is none of machine_type's values (c2-standard-60, c3-highcpu-176)",
		"=a":              `--baseline "=a": want DIMENSION=VALUE`,
	} {
		if _, _, err := runCLI(t, "compare", "--baseline", arg, c2, c3); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--baseline %s: %v, want %q", arg, err, want)
		}
	}
	// A run as the baseline: the runs one by one against it.
	out, _, err = runCLI(t, "compare", "--baseline", "fio-c2", c2, c3)
	if err != nil || !strings.Contains(out, "Baseline: fio-c2 (c2-standard-60).") || !strings.Contains(out, "fio-c3 (c3-highcpu-176) speedup vs fio-c2 (c2-standard-60)") {
		t.Errorf("--baseline fio-c2: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "compare", "--baseline", "fio-c3", "--format", "md", dir)
	if err != nil || !strings.Contains(out, " 0.385x (2.60x slower) ~ p=0.10; 6 a side would decide |") {
		t.Errorf("--baseline fio-c3 --format md: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "compare", "--format", "csv", c2, c3)
	if err != nil || !strings.Contains(out, "fio-c3,StorageBenchmark,default,fio-c3,local-fio-c3,c3-highcpu-176,randread-4k,read_iops,,IOPS,false,,260000,,,,,0.7692307692307693,machine_type,c3-highcpu-176,,fio-c2,speedup,2.6,") {
		t.Errorf("--format csv: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "compare", "--format", "csv", "--baseline", "fio-c2", c2, c3)
	if err != nil || !strings.Contains(out, "fio-c2,fio-c3,randread-4k,read_iops,,IOPS,false,260000,100000,speedup,2.6,") {
		t.Errorf("--format csv: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "compare", "--ratio", "value", "--baseline", "fio-c3", c2, c3)
	if err != nil || !strings.Contains(out, "fio-c2 (c2-standard-60) / fio-c3 (c3-highcpu-176)") || !strings.Contains(out, "0.385x ~ p=0.10") {
		t.Errorf("--ratio value: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "compare", "--ratio", "inverse", c2, c3); err == nil || !strings.Contains(err.Error(), `unknown ratio "inverse"`) {
		t.Errorf("unknown ratio: %v", err)
	}
	if _, _, err := runCLI(t, "compare", c2); err == nil || !strings.Contains(err.Error(), "at least two runs") {
		t.Errorf("one run: %v", err)
	}
	if _, _, err := runCLI(t, "compare", "--baseline", "nope", c2, c3); err == nil || !strings.Contains(err.Error(), `no run named "nope"`) {
		t.Errorf("unknown baseline: %v", err)
	}
}

// TestCompareParsedOutputs compares two real OSU outputs turned into samples
// by `benchwright parse`: each file is a run named after it.
func TestCompareParsedOutputs(t *testing.T) {
	dir := t.TempDir()
	for name, fixture := range map[string]string{"slingshot": "osu/osu_latency_v7.5_validation_cscs_mpich.txt", "tcp": "osu/osu_latency_v5.8_gke_flux.txt"} {
		out, _, err := runCLI(t, "parse", "--tool", "osu", fixtures.Path(t, fixture))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".ndjson"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runCLI(t, "compare", filepath.Join(dir, "slingshot.ndjson"), filepath.Join(dir, "tcp.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	// 8 bytes: 3.07 µs on Slingshot, 31.82 µs over TCP; one repetition a
	// side decides nothing.
	want := "osu_latency latency 8 µs lower 3.070 31.82 0.0965x (10.4x slower) ~ p=1.00"
	found := false
	for _, line := range strings.Split(out, "\n") {
		found = found || strings.Join(strings.Fields(line), " ") == want
	}
	if !found {
		t.Errorf("no row %q:\n%s", want, out)
	}
}
