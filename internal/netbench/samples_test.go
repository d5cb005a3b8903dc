package netbench

import (
	"errors"
	"os"
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// TestSamplesToolErrorIsAStepFailure: a tool that reports its failure in its
// output but exits 0 (iperf3 -J without a writable /tmp did) fails the
// step, quoting the tool, instead of being taken for garbled output.
func TestSamplesToolErrorIsAStepFailure(t *testing.T) {
	pair := Pair{Scope: "interNode", Server: End{Node: 0}, Client: End{Node: 1}}
	for _, tc := range []struct {
		in     Input
		test   string
		output string
		want   string
	}{
		{Input{IPerf3: &benchv1.IPerf3Settings{}}, "iperf3", `{"start":{},"intervals":[],"end":{},"error":"unable to create a new stream: Read-only file system"}`, "Read-only file system"},
		{Input{Fabtests: &benchv1.FabtestsSettings{Tests: []string{"fi_msg_bw"}}}, "fi_msg_bw", readFile(t, "../fabtests/testdata/real/fi_msg_bw_verbs_getinfo_error_1.17.txt"), "fi_getinfo"},
	} {
		rep := &Report{Slot: 1, Node: "node-b", Steps: []StepReport{{Step: Step{Test: tc.test, Pair: pair}, Role: RoleClient, Output: tc.output}}}
		_, err := Samples(tc.in, []*Report{rep})
		var se *StepError
		if !errors.As(err, &se) || !strings.Contains(se.Error(), tc.want) || !strings.Contains(se.Error(), "node-b") {
			t.Errorf("got %v, want a step failure on node-b quoting %q", err, tc.want)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A report's steps of tests the spec does not run are not parsed.
func TestReportSamplesIgnoresStepsNotInTheSpec(t *testing.T) {
	pair := Pair{Scope: "interNode", Server: End{Node: 0}, Client: End{Node: 1}}
	in := Input{Fabtests: &benchv1.FabtestsSettings{Tests: []string{"fi_msg_bw"}}}
	garbage := StepReport{Step: Step{Test: "fi_unasked", Pair: pair}, Role: RoleClient, Output: "not fabtests output"}
	rep := &Report{Slot: 1, Node: "node-b", Steps: []StepReport{garbage, garbage}}
	if samples, err := ReportSamples(in, rep, map[int]string{0: "node-a", 1: "node-b"}); err != nil || len(samples) != 0 {
		t.Errorf("got %d samples, %v; want none and no error", len(samples), err)
	}
}
