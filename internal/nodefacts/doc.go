// Package nodefacts reads the facts of a node that change a benchmark's
// figures and that no Kubernetes object holds: the CPU vulnerability
// mitigations, the SELinux mode, the MTU of the interface the traffic uses,
// the effective CPU frequency over the CPUs a run may use, and (with
// CAP_NET_ADMIN in the host's network namespace) the firewall's rule count.
//
// In the cluster, a benchmark pod's unprivileged init container runs
// "benchwright nodefacts", which prints the facts as one log line (Line) and
// writes it as the container's termination message too (up to MaxMessage);
// the controller reads it back (ParseLine) from the message in the pod's
// status, else from the container's log. Locally, the
// CLI reads them itself. Host roots the reads, so tests lay out /sys and /proc
// in a temporary directory.
package nodefacts
