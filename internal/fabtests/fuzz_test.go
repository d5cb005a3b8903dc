package fabtests

import (
	"math"
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

func FuzzParse(f *testing.F) {
	fixtures.AddTruncatedSeeds(f, "testdata/real/*", "fabtests/*.txt")
	f.Add([]byte("[rank 3] name bytes iters total time MB/sec usec/xfer Mxfers/sec\n[rank 3] x 9.9g 999b 9.9g 1e308s 1e308 0 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := Parse(data, "t")
		if err == nil && len(samples) == 0 {
			t.Fatal("no samples and no error")
		}
		if err != nil && samples != nil {
			t.Fatalf("samples with error %v", err)
		}
		for _, s := range samples {
			if s.Test != "t" || s.Unit == "" || s.Labels["tool"] != "fabtests" || s.Labels["msg_size"] == "" {
				t.Fatalf("incomplete sample %+v", s)
			}
			if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
				t.Fatalf("%s = %v", s.Metric, s.Value)
			}
		}
	})
}
