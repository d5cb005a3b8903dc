package osu

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

// A log of more rows than a run keeps stops the parser at the cap, whatever
// the bytes cap lets through: OSU rows are a few bytes each.
func TestParseSamplesCapped(t *testing.T) {
	osu := func(rows int) []byte {
		var b bytes.Buffer
		b.WriteString("# OSU MPI Latency Test v7.5\n# Size       Avg Latency(us)\n")
		for i := range rows {
			fmt.Fprintf(&b, "%d 1.5\n", i+1)
		}
		return b.Bytes()
	}
	if _, err := Parse(osu(results.MaxRunSamples + 1)); !errors.Is(err, results.ErrTooManySamples) {
		t.Errorf("%d rows: error %v, want ErrTooManySamples", results.MaxRunSamples+1, err)
	}
	if s, err := Parse(osu(results.MaxRunSamples)); err != nil || len(s) != results.MaxRunSamples {
		t.Errorf("%d rows: %d samples, %v", results.MaxRunSamples, len(s), err)
	}
}
