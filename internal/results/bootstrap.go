package results

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Bootstrap draws percentile bootstrap intervals over repetitions: Rounds
// resamples with replacement of each run's values, from a fixed Seed, so
// that the same figures always give the same interval.
type Bootstrap struct {
	Rounds int
	// Level is the interval's coverage, e.g. 0.95.
	Level float64
	Seed  uint64
}

// DefaultBootstrap is what reports and comparisons use.
var DefaultBootstrap = Bootstrap{Rounds: 2000, Level: 0.95, Seed: 1}

// Interval is a confidence interval; NaN bounds mean unknown.
type Interval struct{ Lo, Hi float64 }

// Unknown is the interval of what cannot be resampled.
var Unknown = Interval{math.NaN(), math.NaN()}

// Known tells whether the interval has bounds.
func (i Interval) Known() bool { return !math.IsNaN(i.Lo) && !math.IsNaN(i.Hi) }

// Contains tells whether v lies in the interval (false when unknown).
func (i Interval) Contains(v float64) bool { return i.Known() && i.Lo <= v && v <= i.Hi }

// Median is the interval of the median of values: unknown below two values.
func (b Bootstrap) Median(values []float64) Interval {
	if len(values) < 2 {
		return Unknown
	}
	rng := rand.New(rand.NewPCG(b.Seed, uint64(len(values))))
	draw := make([]float64, len(values))
	meds := make([]float64, 0, b.Rounds)
	for range b.Rounds {
		meds = append(meds, resampledMedian(rng, values, draw))
	}
	return b.percentiles(meds)
}

// Ratio is the interval of median(num)/median(den), each resampled on its
// own: unknown below two values on either side, or when most resampled
// denominators are zero.
func (b Bootstrap) Ratio(num, den []float64) Interval {
	if len(num) < 2 || len(den) < 2 {
		return Unknown
	}
	rng := rand.New(rand.NewPCG(b.Seed, uint64(len(num))<<32|uint64(len(den))))
	dn, dd := make([]float64, len(num)), make([]float64, len(den))
	ratios := make([]float64, 0, b.Rounds)
	for range b.Rounds {
		n, d := resampledMedian(rng, num, dn), resampledMedian(rng, den, dd)
		if d != 0 {
			ratios = append(ratios, n/d)
		}
	}
	if len(ratios) < b.Rounds/2 {
		return Unknown
	}
	return b.percentiles(ratios)
}

// percentiles are the (1-Level)/2 and (1+Level)/2 quantiles of xs.
func (b Bootstrap) percentiles(xs []float64) Interval {
	sort.Float64s(xs)
	at := func(q float64) float64 {
		i := int(math.Round(q * float64(len(xs)-1)))
		return xs[min(max(i, 0), len(xs)-1)]
	}
	return Interval{at((1 - b.Level) / 2), at((1 + b.Level) / 2)}
}

// resampledMedian is the median of len(values) draws with replacement.
func resampledMedian(rng *rand.Rand, values, draw []float64) float64 {
	for i := range draw {
		draw[i] = values[rng.IntN(len(values))]
	}
	sort.Float64s(draw)
	n := len(draw)
	if n%2 == 1 {
		return draw[n/2]
	}
	return (draw[n/2-1] + draw[n/2]) / 2
}
