package main

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
)

// The labels GKE puts on its nodes, as `kubectl describe node` shows them on
// a GKE node (gke-gke-osaka-default-pool-a2626c2f-05m4: cloud.google.com/
// gke-nodepool=default-pool, cloud.google.com/gke-os-distribution=cos,
// cloud.google.com/gke-boot-disk=pd-standard, cloud.google.com/
// gke-container-runtime=containerd, failure-domain.beta.kubernetes.io/zone,
// cloud.google.com/machine-family=e2, node.kubernetes.io/instance-type=
// e2-medium, beta.kubernetes.io/instance-type=e2-medium,
// topology.kubernetes.io/zone=asia-northeast2-a, topology.kubernetes.io/
// region=asia-northeast2); GKE documents cloud.google.com/machine-family as a
// node selector of the machine series
// (https://cloud.google.com/kubernetes-engine/docs/how-to/performance-pods).
// A Spot node has cloud.google.com/gke-spot=true
// (https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms).
const (
	LabelNodePool         = "cloud.google.com/gke-nodepool"
	LabelMachineFamily    = "cloud.google.com/machine-family"
	LabelOSDistribution   = "cloud.google.com/gke-os-distribution"
	LabelBootDisk         = "cloud.google.com/gke-boot-disk"
	LabelContainerRuntime = "cloud.google.com/gke-container-runtime"
	LabelSpot             = "cloud.google.com/gke-spot"
	LabelBetaInstance     = "beta.kubernetes.io/instance-type"
)

// nodeNames are the names GKE gives a pool's n nodes, the instance names of
// its managed instance group: gke-CLUSTER-POOL-HASH-SUFFIX, e.g.
// gke-cluster-1-default-pool-6b6b2a0c-7xkz. HASH is the instance group's, 8
// hex digits (kubernetes/test-infra#20061: instanceGroupManagers/
// gke-some-cluster-some-pool-90fcb815-grp); SUFFIX is 4 random lower-case
// letters or digits per instance. GKE cuts the cluster name so that
// gke-CLUSTER is at most 24 characters (kubernetes/ingress-gce#1623:
// "instance names created by gke truncated up to 24 characters"); a node name
// is a Compute Engine instance name, at most 63 characters (RFC 1035), so the
// pool name is cut to fit.
func nodeNames(cluster, pool string, n int) []string {
	hash := fmt.Sprintf("%08x", rand.Uint32())
	room := 63 - len(nodeNamePrefix(cluster)+"-"+hash+"-xxxx")
	prefix := nodeNamePrefix(cluster) + trimName(pool, room) + "-" + hash + "-"
	names := make([]string, 0, n)
	for len(names) < n {
		if name := prefix + randomSuffix(); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// nodeNamePrefix is the start of the names of a cluster's nodes, gke-CLUSTER-.
func nodeNamePrefix(cluster string) string {
	return "gke-" + trimName(cluster, 24-len("gke-")) + "-"
}

// trimName cuts a name to at most n characters, without a trailing '-'.
func trimName(name string, n int) string {
	if len(name) > n {
		name = name[:n]
	}
	return strings.TrimRight(name, "-")
}

func randomSuffix() string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 4)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))]
	}
	return string(b)
}

// nodeLabels are a pool's node labels: its NodeConfig's labels and the ones
// GKE adds (see the constants above) in zone.
func nodeLabels(np *containerpb.NodePool, zone string) (map[string]string, error) {
	cfg := np.GetConfig()
	distribution, err := osDistribution(cfg.GetImageType())
	if err != nil {
		return nil, err
	}
	labels := maps.Clone(cfg.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	bootDisk := cfg.GetDiskType()
	if bootDisk == "" {
		bootDisk = fakegke.DefaultDiskType
	}
	maps.Copy(labels, map[string]string{
		LabelNodePool:                       np.GetName(),
		LabelMachineFamily:                  gke.MachineSeries(cfg.GetMachineType()),
		LabelOSDistribution:                 distribution,
		LabelBootDisk:                       bootDisk,
		LabelContainerRuntime:               "containerd",
		corev1.LabelInstanceTypeStable:      cfg.GetMachineType(),
		LabelBetaInstance:                   cfg.GetMachineType(),
		corev1.LabelTopologyZone:            zone,
		corev1.LabelTopologyRegion:          fakegke.RegionOf(zone),
		corev1.LabelFailureDomainBetaZone:   zone,
		corev1.LabelFailureDomainBetaRegion: fakegke.RegionOf(zone),
	})
	if cfg.GetSpot() {
		labels[LabelSpot] = "true"
	}
	return labels, nil
}

// osDistribution is the gke-os-distribution label of an image type; GKE's
// default image is COS_CONTAINERD.
func osDistribution(imageType string) (string, error) {
	switch t := strings.ToUpper(imageType); {
	case t == "", strings.HasPrefix(t, "COS"):
		return "cos", nil
	case strings.HasPrefix(t, "UBUNTU"):
		return "ubuntu", nil
	}
	return "", fmt.Errorf("image type %s cannot run on this machine's Linux nodes: use COS_CONTAINERD or UBUNTU_CONTAINERD", imageType)
}

// nodeTaints are a pool's taints as the kubelet registers them.
func nodeTaints(np *containerpb.NodePool) ([]corev1.Taint, error) {
	var out []corev1.Taint
	for _, t := range np.GetConfig().GetTaints() {
		effect, ok := map[containerpb.NodeTaint_Effect]corev1.TaintEffect{
			containerpb.NodeTaint_NO_SCHEDULE:        corev1.TaintEffectNoSchedule,
			containerpb.NodeTaint_PREFER_NO_SCHEDULE: corev1.TaintEffectPreferNoSchedule,
			containerpb.NodeTaint_NO_EXECUTE:         corev1.TaintEffectNoExecute,
		}[t.GetEffect()]
		if !ok {
			return nil, fmt.Errorf("taint %s=%s: effect %s is not one of NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE", t.GetKey(), t.GetValue(), t.GetEffect())
		}
		out = append(out, corev1.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: effect})
	}
	return out, nil
}

// poolZones are the zones of a pool's nodes: its locations, else its
// cluster's.
func poolZones(np *containerpb.NodePool, clusterLocation string) []string {
	if len(np.GetLocations()) > 0 {
		return np.GetLocations()
	}
	return fakegke.DefaultZones(clusterLocation)
}

// poolSpecs are the nodes of a pool: initialNodeCount in each of its zones,
// as GKE makes them (a managed instance group per zone; "initial_node_count
// ... in each of the node pool's zones", google.container.v1 NodePool).
func poolSpecs(cluster gke.Cluster, np *containerpb.NodePool) ([]Spec, error) {
	taints, err := nodeTaints(np)
	if err != nil {
		return nil, err
	}
	var specs []Spec
	for _, zone := range poolZones(np, cluster.Location) {
		labels, err := nodeLabels(np, zone)
		if err != nil {
			return nil, err
		}
		for _, name := range nodeNames(cluster.Name, np.GetName(), int(np.GetInitialNodeCount())) {
			specs = append(specs, Spec{Name: name, Labels: labels, Taints: taints})
		}
	}
	return specs, nil
}
