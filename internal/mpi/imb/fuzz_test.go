package imb

import (
	"math"
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

func FuzzParse(f *testing.F) {
	fixtures.AddTruncatedSeeds(f, "imb/*.txt", "testdata/real/imb_*")
	f.Add([]byte(banner2021 + pingPongHeader + "         1024         1000         2.00       512.00\n"))
	f.Add([]byte("[1,0]<stdout>:" + banner41 + "# Benchmarking Multi-Barrier\n# ( 2 groups of 2 processes each running simultaneous )\n" +
		"        Group #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n\n            0         1000         7.00         9.00         8.00\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := Parse(data)
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
