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

// HackVersion is the version hack/versions.sh pins for NAME (ARGO_VERSION,
// KUBE_VERSION, ...), or NAME's value in the environment, which the scripts
// take first too.
func HackVersion(name string) (string, error) {
	cmd := exec.Command("bash", "-c", `source "$1" && printf '%s' "${!2}"`, "bash",
		filepath.Join(RepoRoot(), "hack", "versions.sh"), name)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/versions.sh: %w", err)
	}
	if len(out) == 0 {
		return "", fmt.Errorf("hack/versions.sh sets no %s", name)
	}
	return string(out), nil
}

// SetEnvtestAssets sets KUBEBUILDER_ASSETS, when it is unset, to the
// directory hack/envtest-assets.sh builds or finds in the cache, so that
// `go test` works without the Makefile.
func SetEnvtestAssets() error {
	if os.Getenv("KUBEBUILDER_ASSETS") != "" {
		return nil
	}
	out, err := exec.Command(filepath.Join(RepoRoot(), "hack", "envtest-assets.sh")).Output()
	if err != nil {
		return fmt.Errorf("envtest assets: %w (run hack/envtest-assets.sh)", err)
	}
	if err := os.Setenv("KUBEBUILDER_ASSETS", strings.TrimSpace(string(out))); err != nil {
		return fmt.Errorf("setting KUBEBUILDER_ASSETS: %w", err)
	}
	return nil
}
