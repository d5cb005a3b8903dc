// Package tuning applies, verifies and restores node settings for a
// TuningProfile: kernel parameters (sysctls under /proc/sys), the cpufreq
// governor of every online CPU, SMT control and transparent hugepages (under
// /sys).
//
// The controller expands a profile into explicit settings (Expand), each with
// its provenance (presets.go), and hands them to the tuner on every selected
// node. The tuner records the original values in a state file before it
// changes anything (Apply), reads every value back, reports one JSON line per
// pass (ReportLine, ParseReports), reads them again periodically (Check), and
// writes the originals back when it is stopped (Restore). A tuner that
// restarts finds the state file and restores the true originals, never values
// it wrote itself; a state of an earlier boot is discarded.
//
// Sysctls outside an allow-list (allow.go) are refused unless the profile
// opts in. A key the node lacks is an error when the spec asks for it, and
// skipped when a preset does (as tuned does: no cpufreq driver on most cloud
// VMs). Some net.* keys (net.core.busy_poll, busy_read, net.ipv4.tcp_mem) are
// global and exist only in the host's network namespace: the tuner must run
// with hostNetwork.
package tuning
