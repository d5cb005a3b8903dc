// Package node starts and stops the real cluster's nodes (hack/real-cluster.sh):
// a node is a slot of this machine, a network namespace on the cluster's
// bridge with its own containerd, kubelet and kube-proxy, and it leaves
// nothing behind when stopped: no process, mount, network namespace or
// cgroup. make real-cluster starts its two always-present nodes with it, and
// the real cluster's GKE endpoint (hack/realgke) the nodes of GKE node pools.
//
// Slot N is network namespace bw-node-N at 10.99.0.(10+N) on the bridge, pod
// subnet 10.244.N.0/24, cgroup root /benchwright-node-N, files under
// Host.Dir/node-N and Host.Run/node-N, processes containerd-N, kubelet-N and
// kube-proxy-N (pid files in Host.Dir/run, as hack/lib/cluster.sh keeps them,
// logs in Host.Dir/logs). A slot's containerd image store is kept between
// nodes, so a node joins without importing the images again; what a node ran
// (containers, pods' volumes, the kubelet's state) goes with it.
package node

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Host is the real cluster as its nodes see it; hack/real-cluster.sh writes
// it as JSON (Dir/host.json).
type Host struct {
	// Dir is the cluster's state directory (REAL_CLUSTER_DIR): pki/, logs/,
	// run/ (pid files), node-N/.
	Dir string `json:"dir"`
	// Run is the directory of sockets and runtime state (/run/benchwright-real).
	Run string `json:"run"`
	// ControlPlaneNetns is the network namespace of the bridge and the control plane.
	ControlPlaneNetns string `json:"controlPlaneNetns"`
	// Bridge is the bridge in ControlPlaneNetns that joins the nodes.
	Bridge string `json:"bridge"`
	// APIServer is the API server's URL.
	APIServer string `json:"apiServer"`
	// DNS is the cluster DNS Service's IP; ServiceCIDR and ClusterCIDR are
	// the Services' and the pods' ranges.
	DNS         string `json:"dns"`
	ServiceCIDR string `json:"serviceCIDR"`
	ClusterCIDR string `json:"clusterCIDR"`
	// Slots is the highest slot number: every node routes to every slot's pods.
	Slots int `json:"slots"`
	// Binaries.
	Kubelet    string `json:"kubelet"`
	KubeProxy  string `json:"kubeProxy"`
	Containerd string `json:"containerd"`
	Ctr        string `json:"ctr"`
	// PauseImage is the pods' sandbox image; Images the file of images every
	// node's containerd holds (lines "NAME REF ARCHIVE", from hack/real-images.sh).
	PauseImage string `json:"pauseImage"`
	Images     string `json:"images"`
}

// LoadHost reads a Host from its JSON file.
func LoadHost(file string) (*Host, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	h := &Host{}
	if err := json.Unmarshal(data, h); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for name, v := range map[string]string{"dir": h.Dir, "run": h.Run, "controlPlaneNetns": h.ControlPlaneNetns,
		"apiServer": h.APIServer, "kubelet": h.Kubelet, "kubeProxy": h.KubeProxy, "containerd": h.Containerd,
		"ctr": h.Ctr, "pauseImage": h.PauseImage, "images": h.Images} {
		if v == "" {
			return nil, fmt.Errorf("%s: %s is not set", file, name)
		}
	}
	if h.Slots < 1 || h.Slots > 200 {
		return nil, fmt.Errorf("%s: slots %d: 1 to 200", file, h.Slots)
	}
	return h, nil
}

// Netns is slot's network namespace.
func Netns(slot int) string { return fmt.Sprintf("bw-node-%d", slot) }

// IP is slot's address on the bridge.
func IP(slot int) string { return fmt.Sprintf("10.99.0.%d", 10+slot) }

// PodCIDR is slot's pod subnet.
func PodCIDR(slot int) string { return fmt.Sprintf("10.244.%d.0/24", slot) }

// CgroupRoot is slot's cgroup root, in every hierarchy.
func CgroupRoot(slot int) string { return fmt.Sprintf("benchwright-node-%d", slot) }

func (h *Host) nodeDir(slot int) string { return filepath.Join(h.Dir, fmt.Sprintf("node-%d", slot)) }
func (h *Host) runDir(slot int) string  { return filepath.Join(h.Run, fmt.Sprintf("node-%d", slot)) }
func (h *Host) socket(slot int) string  { return filepath.Join(h.runDir(slot), "containerd.sock") }
func (h *Host) pki() string             { return filepath.Join(h.Dir, "pki") }
func (h *Host) procDir() string         { return filepath.Join(h.Dir, "run") }
func (h *Host) logDir() string          { return filepath.Join(h.Dir, "logs") }
func (h *Host) kubeconfig(slot int) string {
	return filepath.Join(h.Dir, fmt.Sprintf("node-%d.kubeconfig", slot))
}
func (h *Host) specFile(slot int) string { return filepath.Join(h.nodeDir(slot), "spec.json") }

func (h *Host) checkSlot(slot int) error {
	if slot < 1 || slot > h.Slots {
		return fmt.Errorf("slot %d: the host has slots 1 to %d", slot, h.Slots)
	}
	return nil
}
