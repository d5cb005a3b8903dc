package storagebenchmark

import (
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func TestCheckHostPaths(t *testing.T) {
	allow := []string{"/mnt/disks/", "/scratch"}
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"/mnt/disks/ssd0", true},
		{"/mnt/disks", true},
		{"/scratch/a/b", true},
		{"/scratch2", false},
		{"/mnt/diskstore", false},
		{"/data", false},
	} {
		b := &benchv1.StorageBenchmark{Spec: benchv1.StorageBenchmarkSpec{Volumes: benchv1.StorageVolumes{
			HostPath: &benchv1.HostPathVolumes{Paths: []string{tc.path}}}}}
		err := checkHostPaths(b, allow)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want allowed %v", tc.path, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "/mnt/disks/, /scratch") {
			t.Errorf("%s: %q does not name the allowed directories", tc.path, err)
		}
		if err := checkHostPaths(b, nil); err != nil {
			t.Errorf("%s without an allow-list: %v", tc.path, err)
		}
	}
}
