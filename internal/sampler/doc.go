// Package sampler records what a node did during a benchmark: its CPUs, memory,
// pressure stalls, disks and network, and the CPU and memory of the
// benchmark pod's own processes, read from /proc every interval by the
// sampler sidecar of each benchmark pod (benchwright sample) and by local
// runs.
//
// The sidecar prints the series as lines of its log (Writer), bounded by a
// byte budget: past half of what is left the interval doubles, so a long
// run is kept whole at a coarser step late in it (see DefaultBudget). The manager reads
// the log back as hostile input (Decode), stores it with the run and turns
// it into summary samples per test (Summarize).
package sampler
