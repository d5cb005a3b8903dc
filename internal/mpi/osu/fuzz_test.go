package osu

import (
	"math"
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

func FuzzParse(f *testing.F) {
	fixtures.AddSeeds(f, "testdata/osu_*", "testdata/real/osu_*", "osu/*.txt")
	f.Add([]byte("[1,0]<stdout>:# OSU MPI Barrier Latency Test v7.5\n[1,0]<stdout>:# Avg Latency(us)   Validation\n[1,0]<stdout>:  1.5  Pass\n"))
	f.Add([]byte("# OSU MPI Multiple Bandwidth / Message Rate Test v5.8\n# [ pairs: 1 ] [ window size: varied ]\n\n" +
		"# Uni-directional Bandwidth (MB/sec)\n#               1           2\n1            0.50        0.90\n"))
	f.Add([]byte("# OSU MPI Non-blocking Allreduce Latency Test v7.5\n# Size  Overall(us)  Compute(us)  Pure Comm.(us)  Overlap(%)  P50 Tail Lat(us)  Transmit Size\n4  1.0  2.0  3.0  4.0  5.0  64\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := Parse(data)
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
