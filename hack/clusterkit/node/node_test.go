package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRepository(t *testing.T) {
	for ref, want := range map[string]string{
		"ghcr.io/benchwright/manager:dev-c237f169ae57": "ghcr.io/benchwright/manager",
		"localhost:5000/pause:3.10":                    "localhost:5000/pause",
		"localhost:5000/pause":                         "localhost:5000/pause",
		"quay.io/argoproj/argoexec@sha256:0123":        "quay.io/argoproj/argoexec",
	} {
		if got := repository(ref); got != want {
			t.Errorf("repository(%q) = %q, want %q", ref, got, want)
		}
	}
}

func TestLoadHostSaysWhatIsMissing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "host.json")
	if err := os.WriteFile(file, []byte(`{"dir": "/d", "run": "/r", "slots": 4}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHost(file); err == nil || !strings.Contains(err.Error(), "is not set") {
		t.Errorf("LoadHost of a host without binaries: %v, want what is not set", err)
	}
}

// A slot's files name its own subnet, socket, cgroup root and address.
func TestSlotFiles(t *testing.T) {
	h := &Host{Dir: t.TempDir(), Run: t.TempDir(), DNS: "10.96.0.10", PauseImage: "pause:1", Slots: 10}
	if err := h.writeFiles(7); err != nil {
		t.Fatal(err)
	}
	for file, wants := range map[string][]string{
		"kubelet.yaml":                {"cgroupRoot: /benchwright-node-7", "address: 10.99.0.17", "clusterDNS: [10.96.0.10]", `nodefs.available: "1%"`},
		"containerd.toml":             {`sandbox_image = "pause:1"`, filepath.Join(h.Run, "node-7", "containerd.sock")},
		"cni/conf/10-bridge.conflist": {`"subnet": "10.244.7.0/24"`},
	} {
		data, err := os.ReadFile(filepath.Join(h.Dir, "node-7", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s has no %q:\n%s", file, want, data)
			}
		}
	}
	if err := h.checkSlot(11); err == nil {
		t.Error("slot 11 of a host of 10 was taken")
	}
}
