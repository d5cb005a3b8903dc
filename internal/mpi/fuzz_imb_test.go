package mpi

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// imbAddSeeds adds the shared IMB fixtures, when present, as seeds: whole
// files up to 16 KiB, and the first 16 KiB of larger ones (a truncated log is
// a case of its own); larger inputs only slow the fuzzer down.
func imbAddSeeds(f *testing.F) {
	f.Helper()
	dir := os.Getenv("BENCHWRIGHT_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "fixtures")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "imb", "*.txt"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 16<<10)])
	}
}

func FuzzParseIMB(f *testing.F) {
	imbAddSeeds(f)
	f.Add([]byte(imbBanner2021 + imbPingPongHeader + "         1024         1000         2.00       512.00\n"))
	f.Add([]byte("[1,0]<stdout>:" + imbBanner41 + "# Benchmarking Multi-Barrier\n# ( 2 groups of 2 processes each running simultaneous )\n" +
		"        Group #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n\n            0         1000         7.00         9.00         8.00\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := ParseIMB(data)
		if err != nil {
			if samples != nil {
				t.Fatalf("samples with error %v", err)
			}
			return
		}
		if len(samples) == 0 {
			t.Fatal("no samples and no error")
		}
		for _, s := range samples {
			if s.Test == "" || s.Metric == "" || s.Unit == "" || s.Labels["tool"] != "imb" || s.Labels["tool_version"] == "" {
				t.Fatalf("incomplete sample %+v", s)
			}
			if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
				t.Fatalf("%s %s = %v", s.Test, s.Metric, s.Value)
			}
		}
	})
}
