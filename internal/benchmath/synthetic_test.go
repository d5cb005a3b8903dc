package benchmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The synthetic check of issue 44: pairs of runs drawn from one
// distribution, in tables of 10 to 20 rows as the report has, are marked
// different in at most 5 % of rows after the table's correction; a 10 %
// step at n = 10 with a 3 % CV is found in at least 90 %. Seeds are fixed;
// go test -v prints the rates.

// figures draw one repetition's figure.
type figures struct {
	name string
	draw func(rng *rand.Rand) float64
}

// distributions are what benchmarks give: a 3 % CV, figures rounded to a
// few values (ties), and a heavy tail (a neighbour's burst, 1 in 10).
var distributions = []figures{
	{"normal, 3 % CV", func(rng *rand.Rand) float64 { return 100 * (1 + 0.03*rng.NormFloat64()) }},
	{"rounded, many ties", func(rng *rand.Rand) float64 { return math.Round(100 + 1.5*rng.NormFloat64()) }},
	{"heavy tail", func(rng *rand.Rand) float64 {
		v := 100 * math.Exp(0.02*rng.NormFloat64())
		if rng.IntN(10) == 0 {
			v *= 1 + rng.ExpFloat64()/3
		}
		return v
	}},
}

const syntheticPairs = 1000

func TestSyntheticSameDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 1))
	var tables, falseTables int
	for _, n := range []int{3, 5, 10} {
		for _, d := range distributions {
			marked, rawMarked, tabs, withFalse := 0, 0, 0, 0
			for done := 0; done < syntheticPairs; {
				rows := min(10+rng.IntN(11), syntheticPairs-done)
				vs := make([]Verdict, rows)
				for i := range vs {
					vs[i] = mustCompare(t, draw(rng, d, n, 1), draw(rng, d, n, 1))
					if vs[i].Decided {
						rawMarked++
					}
				}
				any := false
				for _, v := range Table(vs) {
					if v.Decided {
						marked, any = marked+1, true
					}
				}
				if any {
					withFalse++
				}
				done, tabs = done+rows, tabs+1
			}
			rate := float64(marked) / syntheticPairs
			t.Logf("n=%2d, %-18s: %4.1f%% of %d rows marked different after FDR (%4.1f%% before), %d of %d tables with any",
				n, d.name, 100*rate, syntheticPairs, 100*float64(rawMarked)/syntheticPairs, withFalse, tabs)
			if rate > 0.05 {
				t.Errorf("n=%d, %s: %.3f of rows marked different, want at most 0.05", n, d.name, rate)
			}
			tables, falseTables = tables+tabs, falseTables+withFalse
		}
	}
	// Where nothing differs, every discovery is false: the false discovery
	// rate is the share of tables with any, at most 5 % but for chance.
	share := float64(falseTables) / float64(tables)
	t.Logf("tables with any row marked different: %d of %d (%.1f%%)", falseTables, tables, 100*share)
	if limit := 0.05 + 2*math.Sqrt(0.05*0.95/float64(tables)); share > limit {
		t.Errorf("%.3f of tables marked a difference, want at most 0.05 (%.3f with chance)", share, limit)
	}
}

func TestSyntheticTenPercentStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 2))
	d := distributions[0]
	found, falses, nulls := 0, 0, 0
	for range syntheticPairs {
		rows := 10 + rng.IntN(11)
		vs := make([]Verdict, rows)
		step := rng.IntN(rows) // one row stepped, the others alike: the hardest table for the correction
		for i := range vs {
			factor := 1.0
			if i == step {
				factor = 1.1
			}
			vs[i] = mustCompare(t, draw(rng, d, 10, 1), draw(rng, d, 10, factor))
		}
		for i, v := range Table(vs) {
			switch {
			case i == step && v.Decided:
				found++
			case i != step:
				nulls++
				if v.Decided {
					falses++
				}
			}
		}
	}
	rate := float64(found) / syntheticPairs
	t.Logf("10%% step at n=10, 3%% CV: found in %.1f%% of %d tables of 10-20 rows; %.2f%% of the %d other rows marked",
		100*rate, syntheticPairs, 100*float64(falses)/float64(nulls), nulls)
	if rate < 0.9 {
		t.Errorf("the step was found in %.3f, want at least 0.9", rate)
	}
}

// draw is n repetitions of d, times factor.
func draw(rng *rand.Rand, d figures, n int, factor float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = factor * d.draw(rng)
	}
	return out
}
