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
		want string // a part of the refusal; "" allowed
	}{
		{"/mnt/disks/ssd0", ""},
		{"/scratch/a/b", ""},
		// The admin's directory itself: a benchmark there could replace the
		// entries other benchmarks mount (ln -s / /mnt/disks/x).
		{"/mnt/disks", "is the admin's directory itself"},
		{"/scratch", "is the admin's directory itself"},
		{"/scratch2", "/mnt/disks/, /scratch"},
		{"/mnt/diskstore", "/mnt/disks/, /scratch"},
		{"/data", "/mnt/disks/, /scratch"},
		{"/root/.ssh", "/mnt/disks/, /scratch"},
		{"/srv/x", "/mnt/disks/, /scratch"},
		{"/tmp/x", "/mnt/disks/, /scratch"},
		{"/home/alice/.ssh", "/mnt/disks/, /scratch"},
	} {
		b := wrappers.MakeStorageBenchmark("", "").HostPath(tc.path).Obj()
		err := checkHostPaths(b, allow)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want allowed", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a refusal saying %q", tc.path, err, tc.want)
		}
		// Without the admin's directories, no host path at all: the
		// deny-list the API holds missed /root, /srv, /tmp, /home/*/.ssh.
		if err := checkHostPaths(b, nil); err == nil || !strings.Contains(err.Error(), "hostPath volumes are off") {
			t.Errorf("%s without an allow-list: %v, want refused", tc.path, err)
		}
	}
}

// The volume is always a directory no benchmark can write the entry of; the
// rest of the path is a subPath, which the kubelet resolves without leaving
// the volume through a link.
func TestSplitHostPath(t *testing.T) {
	for _, tc := range []struct {
		path      string
		prefixes  []string
		root, sub string
	}{
		{"/mnt/disks/ssd0", []string{"/mnt/disks/", "/scratch"}, "/mnt/disks", "ssd0"},
		{"/mnt/disks/a/b", []string{"/mnt/disks"}, "/mnt/disks", "a/b"},
		// Nested prefixes: the longest holds the path, so a benchmark of the
		// outer one cannot replace the inner one's entries.
		{"/mnt/disks/ssd0/x", []string{"/mnt/disks", "/mnt/disks/ssd0/"}, "/mnt/disks/ssd0", "x"},
		{"/mnt/disks/ssd0", []string{"/mnt/disks", "/mnt/disks/ssd0/"}, "/mnt/disks/ssd0", ""},
		{"/data", []string{"/mnt/disks"}, "", ""},
		{"/mnt/disksx/a", []string{"/mnt/disks"}, "", ""},
		// No allow-list: no volume (checkHostPaths refuses first).
		{"/mnt/disks/ssd0", nil, "", ""},
	} {
		root, sub := splitHostPath(tc.path, tc.prefixes)
		if root != tc.root || sub != tc.sub {
			t.Errorf("splitHostPath(%s, %v) = %q, %q; want %q, %q", tc.path, tc.prefixes, root, sub, tc.root, tc.sub)
		}
	}
}
