package mpi

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// iorAddSeeds adds the files matching pattern in testdata/ and, when present,
// in the shared fixtures; larger files only slow the fuzzer down (it
// minimizes every new input).
func iorAddSeeds(f *testing.F, testdata, fixtures string) {
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

func FuzzParseIOR(f *testing.F) {
	iorAddSeeds(f, "ior_*", "ior/*.txt")
	f.Add([]byte(iorText400))
	f.Add([]byte(iorJSON400))
	f.Add([]byte("Summary:\napi = MPIIO-x (version=3)\nclients = 9223372036854775807\nxfersize = 9223372036854775807 PiB\n\n" +
		"access bw(MiB/s) iter\nwrite 1e308 0\nFinished: now\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := ParseIOR(data)
		if err == nil && len(samples) == 0 {
			t.Fatal("no samples and no error")
		}
		if err != nil && samples != nil {
			t.Fatalf("samples with error %v", err)
		}
		for _, s := range samples {
			if s.Test == "" || s.Metric == "" || s.Unit == "" || s.Labels["tool"] != "ior" {
				t.Fatalf("incomplete sample %+v", s)
			}
			if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
				t.Fatalf("%s %s = %v", s.Test, s.Metric, s.Value)
			}
		}
	})
}
