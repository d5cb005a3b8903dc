package benchmath

import (
	"fmt"
	"math"
)

// MaxRepetitions bounds the repetitions a side that Compare, UTest and
// RatioInterval take, and the ones RepetitionsToDecide and IntervalNeed
// answer (beyond it they say "more than").
const MaxRepetitions = 1000

// Options are the thresholds of a comparison.
type Options struct {
	// Alpha is the false discovery rate of a table, and the level below
	// which a comparison alone is decided (0.05).
	Alpha float64
	// Level is the coverage of the ratio's interval (0.95).
	Level float64
}

// DefaultOptions are benchstat's: α = 0.05 and 95 % intervals.
var DefaultOptions = Options{Alpha: 0.05, Level: 0.95}

// validate says what is wrong with o.
func (o Options) validate() error {
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("alpha %v: want a level between 0 and 1, such as 0.05", o.Alpha)
	}
	return checkLevel(o.Level)
}

// checkLevel says what is wrong with an interval's level.
func checkLevel(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("interval level %v: want a coverage between 0 and 1, such as 0.95", level)
	}
	return nil
}

// checkSide says what is wrong with one side's repetitions: none, too many,
// or a value that is not a finite number.
func checkSide(name string, xs []float64) error {
	if len(xs) == 0 {
		return fmt.Errorf("the %s has no repetitions", name)
	}
	if len(xs) > MaxRepetitions {
		return fmt.Errorf("the %s has %d repetitions: at most %d a side", name, len(xs), MaxRepetitions)
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("repetition %d of the %s is %v: every figure must be a finite number", i+1, name, x)
		}
	}
	return nil
}

// checkSides checks both sides of a comparison.
func checkSides(base, value []float64) error {
	if err := checkSide("baseline", base); err != nil {
		return err
	}
	return checkSide("run", value)
}

// Note says how to read a table of comparisons decided together (Table)
// over family of them, for the table's note.
func (o Options) Note(family int) string {
	return fmt.Sprintf("p is the two-sided Mann-Whitney U test over the repetitions (exact up to %d in all); "+
		"a comparison is decided when p, adjusted over the table's %d comparisons (Benjamini-Hochberg), is at most %s, "+
		"a false discovery rate of %s %%; ~ marks one not decided. [a–b] is the %s %% interval of the ratio "+
		"(Hodges-Lehmann with exact bounds), given from %d repetitions a side",
		exactLimit, family, FormatP(o.Alpha), formatLevel(o.Alpha), formatLevel(o.Level), IntervalNeed(o.Level))
}
