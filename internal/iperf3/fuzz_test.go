package iperf3

import (
	"math"
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

func FuzzParse(f *testing.F) {
	fixtures.AddTruncatedSeeds(f, "testdata/real/*.json")
	f.Add([]byte(`{"start":{"test_start":{"protocol":"TCP"}},"end":{"sum_received":{"bits_per_second":1e308}}}{"error":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := Parse(data, "t")
		if err == nil && len(samples) == 0 {
			t.Fatal("no samples and no error")
		}
		if err != nil && samples != nil {
			t.Fatalf("samples with error %v", err)
		}
		for _, s := range samples {
			if s.Test != "t" || s.Unit == "" || s.Labels["tool"] != "iperf3" {
				t.Fatalf("incomplete sample %+v", s)
			}
			if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
				t.Fatalf("%s = %v", s.Metric, s.Value)
			}
		}
	})
}
