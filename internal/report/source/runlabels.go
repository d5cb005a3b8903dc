package source

import (
	"context"
	"encoding/json"
	"io"
)

// SummaryFile is a stored run's summary, beside its samples: it keeps the
// benchmark's labels (a campaign's cell among them).
const SummaryFile = "summary.json"

// MaxSummaryBytes bounds a summary.json read for its labels: hostile input.
const MaxSummaryBytes = 4 << 20

// LabelSource is a Source that can read the benchmark labels each run's
// summary.json keeps.
type LabelSource interface {
	// RunLabels hands found the labels of each of inputs (as Samples
	// names them) whose summary.json has some; a missing or garbled one is
	// skipped. The error is one that stops the reading as a whole.
	RunLabels(ctx context.Context, inputs []string, found func(input string, labels map[string]string)) error
}

// summaryLabels are the labels of a summary.json; nil when it has none or
// is not one.
func summaryLabels(r io.Reader) map[string]string {
	var s struct {
		Labels map[string]string `json:"labels"`
	}
	if err := json.NewDecoder(io.LimitReader(r, MaxSummaryBytes)).Decode(&s); err != nil || len(s.Labels) == 0 {
		return nil
	}
	return s.Labels
}

// RunLabels implements LabelSource: the summary.json beside each
// samples.ndjson input.
func (f Files) RunLabels(ctx context.Context, inputs []string, found func(string, map[string]string)) error {
	return fileBeside(ctx, inputs, SummaryFile, labelsOf, found) // a run without its summary: placed by its samples alone
}

// RunLabels implements LabelSource: the summary.json beside each
// samples.ndjson of the store that is an input.
func (u StoreRuns) RunLabels(ctx context.Context, inputs []string, found func(string, map[string]string)) error {
	return storeBeside(ctx, u, inputs, SummaryFile, labelsOf, found)
}

// labelsOf is a summary.json's labels; false when it is not one.
func labelsOf(r io.Reader) (map[string]string, bool) {
	labels := summaryLabels(r)
	return labels, labels != nil
}

// RunLabels implements LabelSource: each source's that is one.
func (m multi) RunLabels(ctx context.Context, inputs []string, found func(string, map[string]string)) error {
	return eachOf(ctx, m, func(ls LabelSource) error { return ls.RunLabels(ctx, inputs, found) })
}
