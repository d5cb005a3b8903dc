// Package regress tells where a run's figure stands against the history of
// its configuration, on the logs of the runs' medians (one verdict for a
// figure and any multiple of it):
//
//   - a step: the last 3 runs against the runs before them since the last
//     change point (one-offs, 4 MADs and the tolerance from the median,
//     left out), by Student's t at a standard deviation of at least 0.1 %;
//     the 3 runs must agree with each other, so a one-off run is an Outlier,
//     not a change, until runs like it confirm it;
//   - change points over the history: E-divisive means (Matteson and James,
//     2014, as Apache Otava applies it to performance histories), bisected
//     and tested by permutation; a level beyond the tolerance since a change
//     point stays Regressed or Improved "since run X" until a later one;
//   - a trend over the newest runs, for drifts.
//
// CheckBenchmark checks a benchmark's figures together: groups of figures
// that measure the same thing count once, each group is tested at
// Alpha/Groups, and the groups jointly (Stouffer) at Alpha, so the false
// alarms per benchmark do not grow with its figures.
//
// Runs are compared by their medians over their repetitions: runs of one
// configuration differ by more than their repetitions do (a node, a boot, a
// placement), so pooling repetitions would understate the noise.
package regress
