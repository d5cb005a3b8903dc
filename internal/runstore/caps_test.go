package runstore

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/results"
)

// A run over the samples cap fails OutputTooLarge and leaves the store as it
// was; a run at the cap is stored.
func TestAddRepetitionCapped(t *testing.T) {
	defer func(n int) { maxRunSamples = n }(maxRunSamples)
	maxRunSamples = 4
	ctx := context.Background()
	r, _ := newRun(t)
	two := []results.Sample{latency(0, "0", "1", 2.0), latency(0, "0", "2", 2.5)}
	if _, err := r.AddRepetition(ctx, 0, two, nil, groupBySize); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddRepetition(ctx, 1, []results.Sample{latency(1, "0", "1", 2.1), latency(1, "0", "2", 2.6)}, nil, groupBySize); err != nil {
		t.Fatalf("a run of 4 samples, the cap: %v", err)
	}
	before := get(t, r, results.SamplesNDJSONFile)
	_, err := r.AddRepetition(ctx, 2, []results.Sample{latency(2, "0", "1", 2.2)}, nil, groupBySize)
	var oe *outcome.Outcome
	if !errors.As(err, &oe) || oe.Reason != benchv1.ReasonOutputTooLarge || !strings.Contains(oe.Message, "with repetition 3, the run has more than 4 samples") {
		t.Fatalf("a fifth sample: %v, want OutputTooLarge naming the cap", err)
	}
	if after := get(t, r, results.SamplesNDJSONFile); !bytes.Equal(before, after) {
		t.Errorf("samples.ndjson changed by a run over the cap")
	}
	// Repetition 1 again replaces its samples: still within the cap.
	if _, err := r.AddRepetition(ctx, 1, []results.Sample{latency(1, "1", "1", 2.1), latency(1, "1", "2", 2.6)}, nil, groupBySize); err != nil {
		t.Errorf("repetition 1 again: %v", err)
	}
}
