package compare

import (
	"context"

	"github.com/benchwright/benchwright/internal/report/source"
)

// RunLabels are the benchmark labels of each run, by its index in runs,
// from the summary.json beside its samples; none where src cannot read
// them (a cluster's runs carry theirs) or the run's files have none.
func RunLabels(ctx context.Context, src source.Source, runs []Run) (map[int]map[string]string, error) {
	ls, ok := src.(source.LabelSource)
	if !ok {
		return nil, nil
	}
	inputs, byInput := runInputs(runs)
	out := map[int]map[string]string{}
	err := ls.RunLabels(ctx, inputs, func(input string, labels map[string]string) {
		for _, i := range byInput[input] {
			if out[i] == nil {
				out[i] = labels
			}
		}
	})
	return out, err
}
