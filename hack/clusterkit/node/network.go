package node

import (
	"context"
	"fmt"
	"os"
)

// network gives slot its network namespace, joined to the bridge by the
// veth bwnN (bridge side) / eth0 (node side), with routes to every slot's
// pods and to the Services; the control plane's namespace routes to the
// slot's pods. This machine's own route to the pods is hack/real-cluster.sh's
// (it is made for every slot when the bridge is). Each step is kept when done.
func (h *Host) network(ctx context.Context, slot int) error {
	ns, cp := Netns(slot), h.ControlPlaneNetns
	if _, err := os.Stat("/run/netns/" + ns); err != nil {
		if err := run(ctx, "ip", "netns", "add", ns); err != nil {
			return err
		}
	}
	if run(ctx, "ip", "-n", ns, "link", "show", "eth0") != nil {
		veth := fmt.Sprintf("bwn%d", slot)
		// A veth left in the control plane's namespace by a node whose
		// namespace went without it.
		_ = run(ctx, "ip", "-n", cp, "link", "delete", veth)
		steps := [][]string{
			{"ip", "link", "add", veth, "netns", cp, "type", "veth", "peer", "name", "eth0", "netns", ns},
			{"ip", "-n", ns, "addr", "add", IP(slot) + "/24", "dev", "eth0"},
		}
		for _, s := range steps {
			if err := run(ctx, s[0], s[1:]...); err != nil {
				return err
			}
		}
	}
	steps := [][]string{
		{"ip", "-n", cp, "link", "set", fmt.Sprintf("bwn%d", slot), "master", h.Bridge, "up"},
		{"ip", "-n", ns, "link", "set", "lo", "up"},
		{"ip", "-n", ns, "link", "set", "eth0", "up"},
		// Pods are routed through their node; bridged pod traffic passes
		// iptables (kube-proxy's Service rules).
		{"nsenter", "--net=/run/netns/" + ns, "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.bridge.bridge-nf-call-iptables=1"},
		{"ip", "-n", cp, "route", "replace", PodCIDR(slot), "via", IP(slot)},
		// Services' cluster IPs are translated on the node (kube-proxy).
		{"ip", "-n", ns, "route", "replace", h.ServiceCIDR, "dev", "eth0"},
	}
	for other := 1; other <= h.Slots; other++ {
		if other != slot {
			steps = append(steps, []string{"ip", "-n", ns, "route", "replace", PodCIDR(other), "via", IP(other)})
		}
	}
	for _, s := range steps {
		if err := run(ctx, s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// deleteNetwork removes slot's namespace (its veth goes with it) and the
// control plane's route to its pods.
func (h *Host) deleteNetwork(ctx context.Context, slot int) error {
	_ = run(ctx, "ip", "-n", h.ControlPlaneNetns, "route", "del", PodCIDR(slot))
	if _, err := os.Stat("/run/netns/" + Netns(slot)); err != nil {
		return nil
	}
	return run(ctx, "ip", "netns", "delete", Netns(slot))
}
