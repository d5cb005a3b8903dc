package source

import (
	"fmt"
	"testing"
)

// Arguments keep their order, so the first one named is the baseline
// whether it is a store URL or a file.
func TestSourcesKeepTheOrderGiven(t *testing.T) {
	got := Sources([]string{"gs://bucket/runA", "runB.ndjson", "runC", "s3://bucket/runD"}).(multi)
	want := multi{StoreRuns("gs://bucket/runA"), Files{"runB.ndjson", "runC"}, StoreRuns("s3://bucket/runD")}
	if len(got) != len(want) {
		t.Fatalf("sources %#v, want %#v", got, want)
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Errorf("source %d = %#v, want %#v", i, got[i], want[i])
		}
	}
}
