package benchmath

import (
	"fmt"
	"math"
	"slices"
)

// Interval is a confidence interval of the ratio value/baseline.
type Interval struct {
	// Lo and Hi bound the ratio; NaN when not given.
	Lo, Hi float64
	// Estimate is the Hodges-Lehmann estimate of the ratio: the median of
	// the ratios of every run repetition to every baseline one.
	Estimate float64
	// Level is the interval's coverage, at least the one asked for; 0 when
	// not given.
	Level float64
	// Need is, when the repetitions are too few for the level, how many a
	// side it needs (IntervalNeed); 0 otherwise.
	Need int
}

// Known tells whether the interval has bounds.
func (i Interval) Known() bool { return !math.IsNaN(i.Lo) && !math.IsNaN(i.Hi) }

// Contains tells whether r lies in the interval (false when unknown).
func (i Interval) Contains(r float64) bool { return i.Known() && i.Lo <= r && r <= i.Hi }

// inverse is the interval of baseline/value.
func (i Interval) inverse() Interval {
	return Interval{Lo: 1 / i.Hi, Hi: 1 / i.Lo, Estimate: 1 / i.Estimate, Level: i.Level, Need: i.Need}
}

// noInterval is an interval with no bounds.
func noInterval(estimate float64, need int) Interval {
	return Interval{Lo: math.NaN(), Hi: math.NaN(), Estimate: estimate, Need: need}
}

// RatioInterval is the distribution-free interval of the ratio value/base
// at level (Moses' interval of a shift, on the logs): the log ratios of
// every pair of repetitions, sorted, bounded by the order statistics that
// the U test's null distribution puts (1-level)/2 of its mass beyond. It
// assumes the two sides differ by a factor, whatever their distribution.
// Too few repetitions for the level give no bounds and say how many a side
// the level needs; the figures must be positive.
func RatioInterval(base, value []float64, level float64) (Interval, error) {
	if err := checkSides(base, value); err != nil {
		return Interval{}, err
	}
	if err := checkLevel(level); err != nil {
		return Interval{}, err
	}
	if err := checkPositive(base, value); err != nil {
		return Interval{}, err
	}
	return ratioInterval(base, value, level), nil
}

// checkPositive says which figure cannot be in a ratio.
func checkPositive(base, value []float64) error {
	sides := []struct {
		name string
		xs   []float64
	}{{"baseline", base}, {"run", value}}
	for _, side := range sides {
		for i, x := range side.xs {
			if x <= 0 {
				return fmt.Errorf("repetition %d of the %s is %v: a ratio's interval needs positive figures", i+1, side.name, x)
			}
		}
	}
	return nil
}

// ratioInterval is RatioInterval on checked samples.
func ratioInterval(base, value []float64, level float64) Interval {
	baseLogs := make([]float64, len(base))
	for i, b := range base {
		baseLogs[i] = math.Log(b)
	}
	logs := make([]float64, 0, len(base)*len(value))
	for _, v := range value {
		lv := math.Log(v)
		for _, lb := range baseLogs {
			logs = append(logs, lv-lb)
		}
	}
	slices.Sort(logs)
	m := len(logs)
	estimate := math.Exp((logs[(m-1)/2] + logs[m/2]) / 2)
	k, achieved := criticalOrder(len(base), len(value), level)
	if k < 1 {
		return noInterval(estimate, IntervalNeed(level))
	}
	return Interval{Lo: math.Exp(logs[k-1]), Hi: math.Exp(logs[m-k]), Estimate: estimate, Level: achieved}
}

// criticalOrder is the largest k with P(U <= k-1) <= (1-level)/2 under the
// null distribution of U without ties, and the coverage 1-2P(U <= k-1) of
// the interval between the k-th smallest and k-th largest pair differences;
// 0 when even the extreme ones are too likely. Beyond exactLimit values it
// takes the normal approximation of U.
func criticalOrder(n, m int, level float64) (int, float64) {
	tail := (1 - level) / 2
	if n+m > exactLimit {
		mean, sd := float64(n*m)/2, math.Sqrt(float64(n*m*(n+m+1))/12)
		k := int(math.Floor(mean - normalQuantile(1-tail)*sd))
		if k < 1 {
			return 0, 0
		}
		return k, level
	}
	small := min(n, m)
	dist := untiedDist(small, n+m)
	base := small * (small + 1) // the doubled rank sum at U = 0
	k, cum := 0, 0.0
	for u := 0; base+2*u < len(dist); u++ {
		next := cum + dist[base+2*u]
		if next > tail*(1+1e-12) {
			break
		}
		k, cum = u+1, next
	}
	return k, 1 - 2*cum
}

// IntervalNeed is the fewest repetitions a side (without ties) that give
// RatioInterval bounds at level: 4 for 95 %, 5 for 99 %. Beyond
// MaxRepetitions it says MaxRepetitions+1; a level outside (0, 1) needs 0.
func IntervalNeed(level float64) int {
	if checkLevel(level) != nil {
		return 0
	}
	for n := 1; n <= MaxRepetitions; n++ {
		if 1/choose(2*n, n) <= (1-level)/2*(1+1e-12) {
			return n
		}
	}
	return MaxRepetitions + 1
}

// choose is C(n, k) as a float (+Inf beyond its range).
func choose(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}
