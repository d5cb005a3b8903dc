package runstore

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// DescribeNode is NodeInfo plus the settings the benchmark ran with: the
// pool's effective placement and threads per core, the tuning profile's
// values as they read back on the node, and the firewall rule count its
// tuner reported for the node ("unknown" without a profile or a count).
func DescribeNode(ctx context.Context, c client.Reader, name string, tuning benchv1.TuningProfileName) (results.NodeInfo, error) {
	info, err := NodeInfo(ctx, c, name)
	if err != nil {
		return info, err
	}
	if info.Pool != "" {
		var p benchv1.BenchmarkPool
		if err := c.Get(ctx, client.ObjectKey{Name: info.Pool}, &p); client.IgnoreNotFound(err) != nil {
			return info, err
		} else if err == nil && p.Status.Effective != nil {
			info.Placement = p.Status.Effective.PlacementPolicy
			info.ThreadsPerCore = int(p.Status.Effective.ThreadsPerCore)
		}
	}
	info.FirewallRules = results.FirewallUnknown
	if tuning == "" {
		return info, nil
	}
	var prof benchv1.TuningProfile
	if err := c.Get(ctx, client.ObjectKey{Name: string(tuning)}, &prof); client.IgnoreNotFound(err) != nil {
		return info, err
	} else if err != nil {
		return info, nil
	}
	info.Tuning = prof.Name
	info.TuningSettings = map[string]string{}
	for _, s := range prof.Status.Requested {
		info.TuningSettings[s.Name] = s.Value
	}
	for _, n := range prof.Status.Nodes {
		if n.Node != name {
			continue
		}
		for _, m := range n.Mismatches {
			info.TuningSettings[m.Name] = m.Observed
		}
		if n.FirewallRules != nil {
			info.FirewallRules = strconv.Itoa(int(*n.FirewallRules))
		}
	}
	return info, nil
}

// NodeInfo describes a node from its object: machine type, zone and pool
// labels, kernel and OS image, capacity. A node that is gone is described by
// its name alone.
func NodeInfo(ctx context.Context, c client.Reader, name string) (results.NodeInfo, error) {
	info := results.NodeInfo{Hostname: name}
	var n corev1.Node
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &n); err != nil {
		if apierrors.IsNotFound(err) {
			return info, nil
		}
		return info, err
	}
	info.MachineType = n.Labels[benchv1.MachineTypeLabel]
	info.Zone = n.Labels[corev1.LabelTopologyZone]
	info.Pool = n.Labels[benchv1.PoolLabel]
	info.Kernel = n.Status.NodeInfo.KernelVersion
	info.OSImage = n.Status.NodeInfo.OSImage
	info.CPUs = int(n.Status.Capacity.Cpu().Value())
	info.MemoryBytes = n.Status.Capacity.Memory().Value()
	return info, nil
}
