package results

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNDJSONRoundTrip(t *testing.T) {
	in := []Sample{
		{RunUID: "u1", Kind: "StorageBenchmark", Benchmark: "b", Test: "randread", Metric: "read_iops", Value: 41234.5, Unit: "IOPS",
			Repetition: 2, Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Labels: map[string]string{LabelBlockSize: "4k"}},
		{Test: "osu_latency", Metric: "latency", Value: 1.23, Unit: "us", Labels: map[string]string{LabelMsgSize: "8"}},
	}
	var buf bytes.Buffer
	if err := WriteNDJSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Fatalf("%d lines, want 2", n)
	}
	out, err := ReadNDJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
}

func TestReadNDJSONNamesBadLine(t *testing.T) {
	_, err := ReadNDJSON(strings.NewReader(`{"test":"t","metric":"m","value":1,"unit":"u"}` + "\n\n{broken\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("got %v, want an error naming line 3", err)
	}
	_, err = ReadNDJSON(strings.NewReader(`{"value":1}` + "\n"))
	if err == nil || !strings.Contains(err.Error(), "not a sample") {
		t.Fatalf("got %v, want 'not a sample'", err)
	}
}

func TestWriteCSVHasLabelColumns(t *testing.T) {
	var buf bytes.Buffer
	err := WriteCSV(&buf, []Sample{
		{Test: "t", Metric: "read_iops", Value: 1e6, Unit: "IOPS", Labels: map[string]string{"rw": "randread", "block_size": "4k"}},
		{Test: "t", Metric: "read_bw", Value: 0.5, Unit: "MiB/s", Labels: map[string]string{"node": "n1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "run_uid,kind,namespace,benchmark,test,metric,value,unit,repetition,timestamp,block_size,node,rw\n" +
		",,,,t,read_iops,1e+06,IOPS,0,,4k,,randread\n" +
		",,,,t,read_bw,0.5,MiB/s,0,,,n1,\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
}
