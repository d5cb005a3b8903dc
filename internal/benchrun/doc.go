// Package benchrun holds what the benchmark controllers share: child names and
// ownership, placement, the pool queue, a repetition's attempts, the Failed
// and Succeeded outcomes, conditions and the display state, reading and
// quoting tool logs, labelling samples, node descriptions, and the run's files
// in the artifact store.
package benchrun
