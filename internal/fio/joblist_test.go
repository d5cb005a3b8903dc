package fio

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

// reportOf is a fio report of minimal jobs with the given names.
func reportOf(names ...string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"fio version": "fio-3.33", "jobs": [`)
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jobname": %q, "groupid": 0, "error": 0, "read": {"io_bytes": 4096, "bw": 4, "iops": 1, "runtime": 1000, "total_ios": 1}}`, n)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

func TestParseJSONJobsKeepsTheSpecsJobs(t *testing.T) {
	names := []string{"randread"}
	for i := range 10_000 {
		names = append(names, fmt.Sprintf("unasked-%d", i))
	}
	names = append(names, "seqwrite")
	samples, err := ParseJSONJobs(reportOf(names...), []string{"randread", "seqwrite"})
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	for _, s := range samples {
		if !slices.Contains(tests, s.Test) {
			tests = append(tests, s.Test)
		}
	}
	if want := []string{"randread", "seqwrite"}; !slices.Equal(tests, want) {
		t.Errorf("tests %v, want only the spec's %v", tests, want)
	}
	if all, err := ParseJSON(reportOf(names...)); err != nil || len(all) != len(names)*3 {
		t.Errorf("ParseJSON: %d samples, %v; want every job's 3", len(all), err)
	}
}

func TestParseJSONJobsEntriesCapped(t *testing.T) {
	names := make([]string, maxEntries+1)
	for i := range names {
		names[i] = "randread"
	}
	_, err := ParseJSONJobs(reportOf(names...), []string{"randread"})
	if !errors.Is(err, results.ErrOutputTooLarge) {
		t.Fatalf("%d entries of one job: error %v, want one wrapping ErrOutputTooLarge", len(names), err)
	}
	if _, err := ParseJSONJobs(reportOf(names[1:]...), []string{"randread"}); err != nil {
		t.Errorf("%d entries: %v", maxEntries, err)
	}
}
