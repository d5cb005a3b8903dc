package sampler

import (
	"os"
	"path/filepath"
	"testing"
)

func TestVolumeDevices(t *testing.T) {
	root := t.TempDir()
	fakeRoot(t, root, map[string]string{
		"proc/self/mountinfo": `22 1 0:21 / / rw - overlay overlay rw
30 22 8:17 /var/lib/kubelet/pods/x/volumes/kubernetes.io~empty-dir/data /data rw,relatime - ext4 /dev/sdb1 rw
31 22 259:0 / /data/pd\040one rw - xfs /dev/nvme0n1 rw
32 22 0:40 / /dev/shm rw - tmpfs shm rw
`,
		"sys/block/sdb/sdb1/partition": "1",
		"sys/block/nvme0n1/size":       "1",
	})
	dev := filepath.Join(root, "sys/dev/block")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"8:17": "../../block/sdb/sdb1", "259:0": "../../block/nvme0n1"} {
		if err := os.Symlink(target, filepath.Join(dev, link)); err != nil {
			t.Fatal(err)
		}
	}
	got := Source{Root: root}.VolumeDevices([]string{"/data", "/data/sub/dir", "/data/pd one/f", "/dev/shm", "/scratch"})
	want := map[string]string{
		"/data":          "sdb", // the partition's disk
		"/data/sub/dir":  "sdb",
		"/data/pd one/f": "nvme0n1",
		"/dev/shm":       "none: tmpfs shm",
		"/scratch":       "none: overlay overlay", // the container's own root
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}
}
