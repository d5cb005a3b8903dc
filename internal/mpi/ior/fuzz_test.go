package ior

import (
	"math"
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

func FuzzParse(f *testing.F) {
	fixtures.AddSeeds(f, "testdata/ior_*", "testdata/real/ior_*", "ior/*.txt")
	f.Add([]byte(text400))
	f.Add([]byte(json400))
	f.Add([]byte("Summary:\napi = MPIIO-x (version=3)\nclients = 9223372036854775807\nxfersize = 9223372036854775807 PiB\n\n" +
		"access bw(MiB/s) iter\nwrite 1e308 0\nFinished: now\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := Parse(data)
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
