package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/benchwright/benchwright/internal/nodefacts"
)

// newNodefactsCommand is the node-facts step of every benchmark pod: an
// unprivileged init container of the manager's image runs it with a fixed
// argv. It is the benchwright binary rather than cat or grep because the
// frequency is averaged over the pod's own cpuset and the default route's
// interface is looked up, which a fixed argv of coreutils cannot do; and the
// manager image (distroless) has no coreutils at all.
func newNodefactsCommand() *cobra.Command {
	var root, network, terminationLog string
	cmd := &cobra.Command{
		Use:   "nodefacts",
		Short: "Print this node's facts as one line (the node-facts step of benchmark pods)",
		Long: `Read, without privileges, the facts of this node that change benchmark
figures and print them as one line, "` + nodefacts.LinePrefix + `{...}":
the CPU vulnerabilities and their mitigations (/sys/devices/system/cpu/vulnerabilities),
the SELinux mode (/sys/fs/selinux/enforce; "absent" without selinuxfs), the MTU
of the default route's interface (a pod's eth0, or the node's with hostNetwork),
SMT, and the effective CPU frequency averaged over this process's cpuset
(cpufreq's scaling_cur_freq, else /proc/cpuinfo), with cpufreq's maximum,
governor and boost where present.

With --termination-log the line is also written to that file (the
container's termination message, which the manager reads from the pod's
status instead of its log), unless it is longer than the kubelet keeps.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if network != "pod" && network != "host" {
				return fmt.Errorf(`--network is "pod" or "host", not %q`, network)
			}
			f := nodefacts.Host{Root: root}.Read(nil)
			f.Network = network
			line := nodefacts.Line(f) + "\n"
			if _, err := io.WriteString(cmd.OutOrStdout(), line); err != nil {
				return err
			}
			if terminationLog != "" {
				if err := writeTerminationLog(terminationLog, line); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v; the facts are in the log only\n", err)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&network, "network", "pod", `whose network namespace this is: "pod" or "host" (hostNetwork); recorded with the MTU`)
	cmd.Flags().StringVar(&root, "root", "/", "where /sys and /proc are (tests point it at a temporary directory)")
	cmd.Flags().StringVar(&terminationLog, "termination-log", "", "also write the line to this file, the container's terminationMessagePath (empty: do not)")
	return cmd
}

// writeTerminationLog writes the facts line as the container's termination
// message; nothing when the kubelet would cut it.
func writeTerminationLog(path, line string) error {
	if len(line) > nodefacts.MaxMessage {
		return fmt.Errorf("the facts line is %d bytes, more than the %d of a termination message: not written to %s", len(line), nodefacts.MaxMessage, path)
	}
	return os.WriteFile(path, []byte(line), 0o644)
}
