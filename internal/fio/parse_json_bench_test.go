package fio

import (
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

// BenchmarkParseJSONLarge parses a 4 MiB fio report of 600 jobs.
func BenchmarkParseJSONLarge(b *testing.B) {
	data := fixtures.LargeFioReport(b, 600)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
