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
		output string
		want   string
	}{
		{Input{IPerf3: &benchv1.IPerf3Settings{}}, `{"start":{},"intervals":[],"end":{},"error":"unable to create a new stream: Read-only file system"}`, "Read-only file system"},
		{Input{Fabtests: &benchv1.FabtestsSettings{Tests: []string{"fi_msg_bw"}}}, readFile(t, "../fabtests/testdata/real/fi_msg_bw_verbs_getinfo_error_1.17.txt"), "fi_getinfo"},
	} {
		rep := &Report{Slot: 1, Node: "node-b", Steps: []StepReport{{Step: Step{Test: "t", Pair: pair}, Role: RoleClient, Output: tc.output}}}
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
