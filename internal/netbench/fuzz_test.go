package netbench

import (
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/fixtures"
)

// FuzzReadReport: any log gives a report or an error, any report passes
// Check or not, and any report's steps give samples or an error (not
// both), never a panic.
func FuzzReadReport(f *testing.F) {
	fixtures.AddTruncatedSeeds(f, "testdata/real/*.log")
	f.Add([]byte(ReportMarker + "\n{\"steps\":[{\"role\":\"both\",\"output\":\"bytes iters\"}]}\n"))
	f.Add([]byte(ReportMarker + "\n" + ReportMarker + "\nnull\n"))
	inputs := []Input{
		{Fabtests: &benchv1.FabtestsSettings{Tests: []string{"fi_msg_bw"}}},
		{IPerf3: &benchv1.IPerf3Settings{}},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadReport(data)
		if (r == nil) == (err == nil) {
			t.Fatalf("report %v and error %v", r, err)
		}
		if r == nil {
			return
		}
		for _, in := range inputs {
			_ = r.Check(in, r.Slot)
			samples, err := Samples(in, []*Report{r})
			if err != nil && samples != nil {
				t.Fatalf("samples with error %v", err)
			}
		}
	})
}
