package util

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Helm is the helm binary: $HELM, else the one hack/cluster-tools.sh builds
// from the module proxy (a few minutes on a cold cache). It is looked up once
// per test binary.
var Helm = sync.OnceValues(func() (string, error) {
	if p := os.Getenv("HELM"); p != "" {
		return p, nil
	}
	cmd := exec.Command(filepath.Join(RepoRoot(), "hack", "cluster-tools.sh"), "helm")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/cluster-tools.sh helm: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "HELM="); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("hack/cluster-tools.sh helm printed no HELM= line: %q", out)
})
