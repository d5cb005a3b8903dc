package storagebenchmark

import (
	"fmt"
	"path"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// checkHostPaths refuses a host path outside the directories the admin
// allows. Paths are compared cleaned, a prefix as a whole directory:
// /scratch allows /scratch/a, not /scratch2.
func checkHostPaths(b *benchv1.StorageBenchmark, prefixes []string) error {
	if b.Spec.Volumes.HostPath == nil || len(prefixes) == 0 {
		return nil
	}
	for _, p := range b.Spec.Volumes.HostPath.Paths {
		if !underAny(path.Clean(p), prefixes) {
			return fmt.Errorf("hostPath %s is outside the directories this cluster's admin allows for benchmarks (%s): use a directory under one of them, or ask the admin to add one (chart value storage.hostPathPrefixes)",
				p, strings.Join(prefixes, ", "))
		}
	}
	return nil
}

func underAny(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		pre = path.Clean(pre)
		if p == pre || strings.HasPrefix(p, strings.TrimSuffix(pre, "/")+"/") {
			return true
		}
	}
	return false
}
