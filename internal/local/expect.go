package local

import (
	"fmt"
	"io"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// PrintExpectations holds the spec's expectations against a local run and
// prints each verdict. Relative expectations need the baseline's run in a
// cluster: they are listed as not checked here.
func PrintExpectations(w io.Writer, exps []benchv1.Expectation, summaries []results.Summary) error {
	if len(exps) == 0 {
		return nil
	}
	var absolute []benchv1.Expectation
	for _, e := range exps {
		if e.Relative != nil {
			against := string(e.Relative.Baseline)
			if e.Relative.History != nil {
				against = "its own earlier runs"
			}
			if _, err := fmt.Fprintf(w, "  not checked here: %s %s relative to %s (baselines are runs in a cluster)\n", e.Test, e.Metric, against); err != nil {
				return err
			}
			continue
		}
		absolute = append(absolute, e)
	}
	checks, err := results.Evaluate(absolute, summaries, results.Baselines{Named: func(string) ([]results.Summary, error) { return nil, results.ErrNoBaseline }})
	if err != nil {
		return err
	}
	held := 0
	for _, c := range checks {
		verdict := "FAILS"
		if c.Met {
			verdict, held = "holds", held+1
		}
		if _, err := fmt.Fprintf(w, "  %s: %s\n", verdict, c.Describe()); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "expectations: %d of %d hold\n", held, len(checks))
	return err
}
