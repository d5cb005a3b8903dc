// Package regress tells whether a run's figure changed against the history
// of its configuration, by two methods:
//
//   - a step: the new run against the runs before it (since the last change
//     point), by a prediction interval of Student's t over their medians, and
//     a tolerance below which a change does not count;
//   - change points over the history: E-divisive means (Matteson and James,
//     2014, as Apache Otava applies it to performance histories), the most
//     recent change point found by bisection and tested by permutation.
//
// Runs are compared by their medians over their repetitions: runs of one
// configuration differ by more than their repetitions do (a node, a boot, a
// placement), so pooling repetitions would understate the noise.
package regress
