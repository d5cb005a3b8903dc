// Package children is what a benchmark makes and owns: its children's names
// and labels, creating them with the benchmark as their controller, keeping
// their pods on the benchmark's nodes, and reading back where an attempt of a
// repetition stands (Attempt, Phase), over one Job per node slot or any
// other children a driver lists. The state machine (internal/benchrun)
// imports it, never the reverse.
package children
