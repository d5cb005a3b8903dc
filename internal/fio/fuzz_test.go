package fio

import (
	"math"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/fixtures"
)

func FuzzParseJSON(f *testing.F) {
	fixtures.AddSeeds(f, "testdata/fio*", "fio/*.json")
	f.Add([]byte(`{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "read": {"io_bytes": 1, "iops": 1e308, "bw_bytes": 1e308}}, {"jobname": "j", "read": {"io_bytes": 1, "iops": 1e308}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := ParseJSON(data)
		if err == nil && len(samples) == 0 {
			t.Fatal("no samples and no error")
		}
		for _, s := range samples {
			if s.Metric == "" || s.Unit == "" || s.Labels["tool"] != "fio" {
				t.Fatalf("incomplete sample %+v", s)
			}
			if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
				t.Fatalf("%s = %v", s.Metric, s.Value)
			}
		}
	})
}

func FuzzParseDD(f *testing.F) {
	fixtures.AddSeeds(f, "testdata/dd_*", "dd/*.txt")
	f.Add([]byte("1 bytes copied, 1e-320 s, x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseDD(data)
		if err == nil && len(got) == 0 {
			t.Fatal("no results and no error")
		}
		for _, r := range got {
			if r.Bytes < 0 || r.Seconds < 0 || math.IsInf(r.Seconds, 0) || r.ReportedRate == "" {
				t.Fatalf("bad result %+v", r)
			}
			for _, s := range DDSamples(r, "t", "write") {
				if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
					t.Fatalf("%s = %v", s.Metric, s.Value)
				}
			}
		}
	})
}

func FuzzParseDDProcesses(f *testing.F) {
	fixtures.AddSeeds(f, "testdata/dd_*", "dd/*.txt")
	f.Add([]byte("==> benchwright dd process 0 <==\n9223372036854775807 bytes copied, 1 s, x\n==> benchwright dd process 1 <==\n1 bytes copied, 0 s, x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for n := 1; n <= 4; n++ {
			got, err := ParseDDProcesses(data, n)
			if err == nil && len(got) != n {
				t.Fatalf("%d results for %d processes", len(got), n)
			}
			agg := DDAggregate(got)
			if agg.Bytes < 0 || agg.Seconds < 0 {
				t.Fatalf("bad aggregate %+v", agg)
			}
			samples, err := DDTestSamples(benchv1.DDTest{Name: "t", Operation: benchv1.DDRead, Processes: int32(n)}, data)
			if err == nil && len(samples) == 0 {
				t.Fatal("no samples and no error")
			}
			for _, s := range samples {
				if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
					t.Fatalf("%s = %v", s.Metric, s.Value)
				}
			}
		}
	})
}
