package storagebenchmark

import (
	"fmt"
	"path"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// checkHostPaths refuses a host path outside the directories the admin
// allows, and the admin's directory itself: a benchmark gets a directory
// under it, never the directory whose entries other benchmarks mount. Paths
// are compared cleaned, a prefix as a whole directory: /scratch allows
// /scratch/a, not /scratch2 and not /scratch. With no directories, no host
// path: a deny-list of the node's system directories always misses one.
func checkHostPaths(b *benchv1.StorageBenchmark, prefixes []string) error {
	if b.Spec.Volumes.HostPath == nil {
		return nil
	}
	if len(prefixes) == 0 {
		return fmt.Errorf("hostPath volumes are off in this cluster: its admin allows no host directory for benchmarks (chart value storage.hostPathPrefixes, manager flag --host-path-prefixes); use a PersistentVolumeClaim, or ask the admin for one")
	}
	for _, p := range b.Spec.Volumes.HostPath.Paths {
		root, sub := splitHostPath(p, prefixes)
		switch {
		case root == "":
			return fmt.Errorf("hostPath %s is outside the directories this cluster's admin allows for benchmarks (%s): use a directory under one of them, or ask the admin to add one (chart value storage.hostPathPrefixes)",
				p, strings.Join(prefixes, ", "))
		case sub == "":
			return fmt.Errorf("hostPath %s is the admin's directory itself, which other benchmarks' directories live in: use a directory under it, e.g. %s/ssd0",
				p, root)
		}
	}
	return nil
}

// splitHostPath is the pod's view of host path p: root, the directory the
// volume mounts, and sub, the rest of p, mounted as the volume's subPath.
// The kubelet opens a subPath one component at a time without following
// links (its safe-open), so a link a benchmark left under root that leads
// out of it (ln -s / /mnt/disks/x) fails the pod instead of mounting the
// node's /. root is the longest of the admin's prefixes that holds p, ""
// when p is under none.
func splitHostPath(p string, prefixes []string) (root, sub string) {
	p = path.Clean(p)
	for _, pre := range prefixes {
		pre = path.Clean(pre)
		if pre == "/" {
			continue
		}
		if p != pre && !strings.HasPrefix(p, pre+"/") {
			continue
		}
		if len(pre) > len(root) {
			root = pre
		}
	}
	if root == "" {
		return "", ""
	}
	return root, strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
}
