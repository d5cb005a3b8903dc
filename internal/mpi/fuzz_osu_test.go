package mpi

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// osuAddSeeds adds the files matching pattern in testdata/ and, when present,
// in the shared fixtures; larger files only slow the fuzzer down (it
// minimizes every new input).
func osuAddSeeds(f *testing.F, testdata, fixtures string) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", testdata))
	dir := os.Getenv("BENCHWRIGHT_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "fixtures")
	}
	more, _ := filepath.Glob(filepath.Join(dir, fixtures))
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 16<<10 {
			f.Add(data)
		}
	}
}

func FuzzParseOSU(f *testing.F) {
	osuAddSeeds(f, "osu_*", "osu/*.txt")
	f.Add([]byte("[1,0]<stdout>:# OSU MPI Barrier Latency Test v7.5\n[1,0]<stdout>:# Avg Latency(us)   Validation\n[1,0]<stdout>:  1.5  Pass\n"))
	f.Add([]byte("# OSU MPI Multiple Bandwidth / Message Rate Test v5.8\n# [ pairs: 1 ] [ window size: varied ]\n\n" +
		"# Uni-directional Bandwidth (MB/sec)\n#               1           2\n1            0.50        0.90\n"))
	f.Add([]byte("# OSU MPI Non-blocking Allreduce Latency Test v7.5\n# Size  Overall(us)  Compute(us)  Pure Comm.(us)  Overlap(%)  P50 Tail Lat(us)  Transmit Size\n4  1.0  2.0  3.0  4.0  5.0  64\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := ParseOSU(data)
		if err == nil && len(samples) == 0 {
			t.Fatal("no samples and no error")
		}
		if err != nil && samples != nil {
			t.Fatalf("samples returned with error %v", err)
		}
		for _, s := range samples {
			if s.Test == "" || s.Metric == "" || s.Unit == "" || s.Labels["tool"] != "osu" {
				t.Fatalf("incomplete sample %+v", s)
			}
			if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
				t.Fatalf("%s = %v", s.Metric, s.Value)
			}
		}
	})
}
