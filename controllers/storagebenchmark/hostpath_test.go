package storagebenchmark

import (
	"strings"
	"testing"

	"github.com/benchwright/benchwright/test/wrappers"
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
		b := wrappers.MakeStorageBenchmark("", "").HostPath(tc.path).Obj()
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
