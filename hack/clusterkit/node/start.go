package node

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/hack/clusterkit/pki"
)

// Spec is a node to start in a slot.
type Spec struct {
	// Name is the Node's name.
	Name string `json:"name"`
	// Labels and Taints are registered by the kubelet (--node-labels,
	// --register-with-taints), as a GKE node's kubelet registers its pool's.
	Labels map[string]string `json:"labels,omitempty"`
	Taints []corev1.Taint    `json:"taints,omitempty"`
}

// Start starts a node in slot: its network namespace, containerd (with the
// cluster's images), kubelet and kube-proxy. It returns once they run; the
// Node registers and becomes Ready after. What already runs as asked is
// kept, so Start resumes a node; a slot holding another node is refused.
func (h *Host) Start(ctx context.Context, slot int, s Spec) error {
	if err := h.checkSlot(slot); err != nil {
		return err
	}
	if s.Name == "" {
		return fmt.Errorf("slot %d: a node needs a name", slot)
	}
	if old, err := h.spec(slot); err == nil && old.Name != s.Name {
		if _, running := h.running(kubeletName(slot)); running {
			return fmt.Errorf("slot %d holds node %s: stop it first", slot, old.Name)
		}
		// A node stopped without Stop: its certificate names it.
		h.forgetIdentity(slot)
	}
	for _, d := range []string{h.procDir(), h.logDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := h.writeFiles(slot); err != nil {
		return err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := os.WriteFile(h.specFile(slot), data, 0o644); err != nil {
		return err
	}
	if err := h.identity(slot, s.Name); err != nil {
		return err
	}
	if err := h.network(ctx, slot); err != nil {
		return err
	}
	if err := cgroupRoot(slot); err != nil {
		return err
	}
	if err := h.ensure(fmt.Sprintf("containerd-%d", slot), Netns(slot), h.Containerd,
		"--config", filepath.Join(h.nodeDir(slot), "containerd.toml")); err != nil {
		return err
	}
	if err := h.containerdReady(ctx, slot); err != nil {
		return err
	}
	if err := h.importImages(ctx, slot); err != nil {
		return err
	}
	if err := h.StartKubelet(slot); err != nil {
		return err
	}
	return h.ensure(fmt.Sprintf("kube-proxy-%d", slot), Netns(slot), h.KubeProxy,
		"--kubeconfig", filepath.Join(h.Dir, "kube-proxy.kubeconfig"),
		"--hostname-override", s.Name, "--cluster-cidr", h.ClusterCIDR, "--proxy-mode", "iptables",
		"--conntrack-max-per-core", "0", "--metrics-bind-address", "127.0.0.1:10249",
		"--healthz-bind-address", "127.0.0.1:10256", "--v", "1")
}

// StartKubelet starts slot's kubelet for the node Start last started there
// (a node lost and back: its containers ran on meanwhile).
func (h *Host) StartKubelet(slot int) error {
	s, err := h.spec(slot)
	if err != nil {
		return fmt.Errorf("slot %d has no node: %w", slot, err)
	}
	nd := h.nodeDir(slot)
	args := []string{"--config", filepath.Join(nd, "kubelet.yaml"),
		"--kubeconfig", h.kubeconfig(slot), "--root-dir", filepath.Join(nd, "kubelet"),
		"--cert-dir", filepath.Join(nd, "kubelet", "pki"),
		"--hostname-override", s.Name, "--node-ip", IP(slot)}
	if len(s.Labels) > 0 {
		var labels []string
		for k, v := range s.Labels {
			labels = append(labels, k+"="+v)
		}
		slices.Sort(labels)
		args = append(args, "--node-labels", strings.Join(labels, ","))
	}
	if len(s.Taints) > 0 {
		var taints []string
		for _, t := range s.Taints {
			taints = append(taints, t.ToString())
		}
		args = append(args, "--register-with-taints", strings.Join(taints, ","))
	}
	return h.ensure(kubeletName(slot), Netns(slot), h.Kubelet, append(args, "--v", "1")...)
}

// StopKubelet stops slot's kubelet alone: the node stops answering, its
// containers run on.
func (h *Host) StopKubelet(slot int) { h.stop(kubeletName(slot)) }

func kubeletName(slot int) string { return fmt.Sprintf("kubelet-%d", slot) }

func (h *Host) spec(slot int) (Spec, error) {
	var s Spec
	data, err := os.ReadFile(h.specFile(slot))
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(data, &s)
}

// identity is the node's client certificate (system:node:NAME, which the
// Node authorizer and NodeRestriction key on) and kubeconfig.
func (h *Host) identity(slot int, name string) error {
	cert := fmt.Sprintf("node-%d", slot)
	if err := pki.WriteCert(h.pki(), cert, "/O=system:nodes/CN=system:node:"+name, ""); err != nil {
		return err
	}
	return pki.WriteKubeconfig(h.kubeconfig(slot), "real", h.APIServer, filepath.Join(h.pki(), "ca.crt"), cert)
}

// forgetIdentity removes slot's certificate and kubeconfig.
func (h *Host) forgetIdentity(slot int) {
	for _, f := range []string{fmt.Sprintf("node-%d.crt", slot), fmt.Sprintf("node-%d.key", slot)} {
		_ = os.Remove(filepath.Join(h.pki(), f))
	}
	_ = os.Remove(h.kubeconfig(slot))
}

// cgroupRoot makes /benchwright-node-N in every cgroup v1 hierarchy (the
// kubelet wants its cgroupRoot to exist); cpuset's needs CPUs and memory nodes.
func cgroupRoot(slot int) error {
	dirs, _ := filepath.Glob("/sys/fs/cgroup/*")
	for _, d := range dirs {
		if filepath.Base(d) == "unified" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "cgroup.procs")); err != nil {
			continue
		}
		root := filepath.Join(d, CgroupRoot(slot))
		if err := os.MkdirAll(root, 0o755); err != nil {
			return err
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			v, err := os.ReadFile(filepath.Join(d, f))
			if err != nil {
				continue
			}
			if err := os.WriteFile(filepath.Join(root, f), v, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// containerdReady waits up to a minute for slot's containerd to answer.
func (h *Host) containerdReady(ctx context.Context, slot int) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := run(ctx, h.Ctr, "--address", h.socket(slot), "version")
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("containerd of slot %d does not answer: %w (log: %s)", slot, err,
				tail(filepath.Join(h.logDir(), fmt.Sprintf("containerd-%d.log", slot)), 5))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// importImages imports into slot's containerd every image it lacks, and
// removes the earlier builds of those images (another tag of the same
// repository), which a slot's kept store would otherwise pile up.
func (h *Host) importImages(ctx context.Context, slot int) error {
	ctr := []string{"--address", h.socket(slot), "-n", "k8s.io", "images"}
	out, err := output(ctx, h.Ctr, append(ctr, "ls", "-q")...)
	if err != nil {
		return err
	}
	have := strings.Fields(out)
	data, err := os.ReadFile(h.Images)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	repos := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 3 {
			continue
		}
		want[fields[1]] = true
		repos[repository(fields[1])] = true
		if slices.Contains(have, fields[1]) {
			continue
		}
		if err := run(ctx, h.Ctr, append(ctr, "import", "--no-unpack=false", fields[2])...); err != nil {
			return fmt.Errorf("importing %s into slot %d: %w", fields[0], slot, err)
		}
	}
	for _, ref := range have {
		// Tags only: a digest reference (repo@sha256:...) names a kept image too.
		if !want[ref] && !strings.Contains(ref, "@") && repos[repository(ref)] {
			_ = run(ctx, h.Ctr, append(ctr, "rm", ref)...)
		}
	}
	return nil
}

// repository is an image reference without its tag or digest.
func repository(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		return ref[:i]
	}
	return ref
}
