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
// /scratch/a, not /scratch2 and not /scratch.
func checkHostPaths(b *benchv1.StorageBenchmark, prefixes []string) error {
	if b.Spec.Volumes.HostPath == nil || len(prefixes) == 0 {
		return nil
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
// node's /. root is the longest of the admin's prefixes that holds p, or
// with no prefixes p's first component (/mnt of /mnt/disks/ssd0), which no
// benchmark can replace: the API refuses / as a host path. root is "" when p
// is under no prefix.
func splitHostPath(p string, prefixes []string) (root, sub string) {
	p = path.Clean(p)
	if len(prefixes) == 0 {
		first, rest, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		return "/" + first, rest
	}
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
