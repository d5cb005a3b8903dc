// Package benchrun is the benchmarks' state machine: one reconcile of a
// StorageBenchmark, MPIBenchmark or NetworkBenchmark (Env.Reconcile) holds it
// until its pool, tuning and queue let it start, then runs its repetitions
// attempt by attempt, within the start, run and waitForNodes timeouts,
// retrying lost attempts up to spec.maxRetries, and ends it Succeeded (with
// the expectations' verdict and the run's report) or Failed with an
// outcome. Each kind is a Driver, for what only the kind knows: its
// children, where an attempt stands, and reading its output. The status is
// written once per reconcile, the events after it.
//
// The building blocks it and the drivers share are packages of their own:
// internal/children (names, ownership, the node slots' Jobs, Attempt),
// internal/poolqueue, internal/runstore, internal/podlogs and
// internal/outcome. They do not import benchrun, and benchrun imports no
// controller.
package benchrun
