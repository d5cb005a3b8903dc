// Package interference tells which repetitions of benchmark runs were not
// alone on their machine: those that ran while another run ran on the same
// machine (Overlaps), and those during which processes other than the run's
// own used more than a set share of the machine's CPU (Shares, disturbed).
// Its inputs are what a run stores: each node's machine and repetition
// windows (nodes.json: nodefacts.Facts.Machine, results.Window) and the
// sampler's series of each pod (the node's CPU and the pod's own). Plain
// functions over plain data; the report marks what they find.
package interference
