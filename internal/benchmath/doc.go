// Package benchmath decides whether two sets of benchmark repetitions
// differ, with statistics that hold at the sample sizes benchmarks have
// (2 to about 20 repetitions a side), after golang.org/x/perf/benchmath,
// which benchstat uses.
//
// Compare takes a baseline's and a run's repetitions and gives a Verdict:
//   - the p-value of a two-sided Mann-Whitney U test (UTest), exact over
//     every split of the pooled repetitions (ties by mid-ranks) up to 60
//     values in all, a seeded Monte Carlo permutation test beyond; the seed
//     depends on the sample sizes only, so proportional inputs give the
//     same p. With 3 vs 3 the smallest p is 0.1: nothing is decided.
//   - the ratio of the medians, and a distribution-free interval of the
//     ratio (RatioInterval): the Hodges-Lehmann estimate of the log ratio
//     with exact order-statistic bounds (Moses), given only where the
//     repetitions allow its level, else the repetitions a side it needs
//     (IntervalNeed: 4 a side for 95 %).
//   - for an undecided comparison, the repetitions a side that would decide
//     it at the observed change and spread (RepetitionsToDecide).
//
// A table tests many comparisons at once: Table controls their false
// discovery rate (Benjamini-Hochberg, AdjustBH) and decides each one on
// its adjusted p.
//
// The package is pure: no I/O, no clock, no global randomness. It knows
// nothing of reports; a caller orients the ratio (Verdict.Inverse) and
// prints Verdict.Mark and Verdict.String.
package benchmath
