// Package benchrun holds what the benchmark controllers share: child names and
// ownership, the Failed outcome, conditions and the display state, reading and
// quoting tool logs, node descriptions, and the run's files in the artifact
// store.
package benchrun
