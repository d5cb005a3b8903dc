package fio

import (
	"fmt"
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

// BenchmarkParseJSONLarge parses a 4 MiB fio report of 600 jobs: every job
// (ParseJSON, `benchwright parse`), or the 8 a spec asked for (ParseJSONJobs,
// the manager).
func BenchmarkParseJSONLarge(b *testing.B) {
	data := fixtures.LargeFioReport(b, 600)
	var spec []string
	for i := range 8 {
		spec = append(spec, fmt.Sprintf("job-%d", i))
	}
	for _, bc := range []struct {
		name string
		jobs []string
	}{{"every-job", nil}, {"spec-jobs", spec}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseJSONJobs(data, bc.jobs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
