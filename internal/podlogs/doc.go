// Package podlogs reads and explains what the benchmarks' pods did: their
// logs, read bounded (MaxLogBytes) through the API server or a test's
// reader; the lines of a failed tool's log a condition quotes; and, from a
// pod's status, why it does not run, where it ran and when it ended.
package podlogs
