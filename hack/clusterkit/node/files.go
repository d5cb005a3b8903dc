package node

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeFiles writes slot's containerd, CNI, DNS and kubelet configuration.
func (h *Host) writeFiles(slot int) error {
	nd, run := h.nodeDir(slot), h.runDir(slot)
	for _, d := range []string{"containerd", "cni/conf", "cni/ipam", "kubelet", "manifests", "pod-logs"} {
		if err := os.MkdirAll(filepath.Join(nd, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(run, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"containerd.toml":             h.containerdConfig(slot),
		"cni/conf/10-bridge.conflist": h.cniConfig(slot),
		// Pods resolve nothing outside the cluster: no traffic leaves the namespaces.
		"resolv.conf":  fmt.Sprintf("nameserver %s\nsearch cluster.local\noptions ndots:5\n", h.DNS),
		"kubelet.yaml": h.kubeletConfig(slot),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(nd, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (h *Host) containerdConfig(slot int) string {
	nd, run := h.nodeDir(slot), h.runDir(slot)
	return fmt.Sprintf(`version = 2
root = "%[1]s/containerd/root"
state = "%[2]s/containerd"
[grpc]
  address = "%[2]s/containerd.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "%[1]s/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "%[3]s"
  restrict_oom_score_adj = true
  # Pods' network namespaces under this node's state dir, not /run/netns:
  # a node's stop unmounts them with the rest.
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "%[1]s/cni/conf"
`, nd, run, h.PauseImage)
}

func (h *Host) cniConfig(slot int) string {
	return fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "benchwright-node-%d",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "%s"}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": "%s/cni/ipam"
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`, slot, PodCIDR(slot), h.nodeDir(slot))
}

func (h *Host) kubeletConfig(slot int) string {
	nd := h.nodeDir(slot)
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
cgroupRoot: /%[1]s
failCgroupV1: false
containerRuntimeEndpoint: unix://%[2]s
imageServiceEndpoint: unix://%[2]s
staticPodPath: %[3]s/manifests
podLogsDir: %[3]s/pod-logs
address: %[4]s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[5]s/ca.crt}
authorization:
  mode: Webhook
clusterDomain: cluster.local
clusterDNS: [%[6]s]
resolvConf: %[3]s/resolv.conf
failSwapOn: false
protectKernelDefaults: false
evictionHard:
  memory.available: "100Mi"
  nodefs.available: "1%%"
  imagefs.available: "1%%"
  nodefs.inodesFree: "1%%"
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
syncFrequency: 10s
fileCheckFrequency: 5s
serializeImagePulls: false
`, CgroupRoot(slot), h.socket(slot), nd, IP(slot), h.pki(), h.DNS)
}
