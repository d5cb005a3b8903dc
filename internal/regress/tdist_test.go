package regress

import (
	"math"
	"testing"
)

// Two-sided tails of Student's t against published tables.
func TestStudentTwoSided(t *testing.T) {
	for _, tc := range []struct{ t, df, p float64 }{
		{2.228, 10, 0.05}, {3.169, 10, 0.01}, {4.587, 10, 0.001},
		{12.706, 1, 0.05}, {2.045, 29, 0.05}, {1.96, 1e6, 0.05}, {0, 5, 1},
	} {
		if got := studentTwoSided(tc.t, tc.df); math.Abs(got-tc.p) > tc.p*0.01+1e-6 {
			t.Errorf("P(|T_%g| >= %g) = %.5f, want %.5f", tc.df, tc.t, got, tc.p)
		}
	}
}
