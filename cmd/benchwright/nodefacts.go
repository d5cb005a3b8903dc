package main

import (
	"fmt"

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
	var root, network string
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
governor and boost where present.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if network != "pod" && network != "host" {
				return fmt.Errorf(`--network is "pod" or "host", not %q`, network)
			}
			f := nodefacts.Host{Root: root}.Read(nil)
			f.Network = network
			_, err := fmt.Fprintln(cmd.OutOrStdout(), nodefacts.Line(f))
			return err
		},
	}
	cmd.Flags().StringVar(&network, "network", "pod", `whose network namespace this is: "pod" or "host" (hostNetwork); recorded with the MTU`)
	cmd.Flags().StringVar(&root, "root", "/", "where /sys and /proc are (tests point it at a temporary directory)")
	return cmd
}
