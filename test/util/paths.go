// Package util holds helpers shared by the test packages.
package util

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// RepoRoot is the root of the repository, found from this file's location.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// CRDDir is the directory of the generated CRDs.
func CRDDir() string { return filepath.Join(RepoRoot(), "config", "crd", "bases") }

// MPIJobCRD is the MPI Operator's MPIJob CRD, taken from the
// github.com/kubeflow/mpi-operator module at the version go.mod pins.
func MPIJobCRD() (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kubeflow/mpi-operator")
	cmd.Dir = RepoRoot()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating the mpi-operator module (go mod download): %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "manifests", "base", "kubeflow.org_mpijobs.yaml"), nil
}

// ArgoModule is the directory of the github.com/argoproj/argo-workflows/v3
// module at the version hack/versions.sh pins (ARGO_VERSION), which
// hack/cluster-tools.sh fetched into its wrapper module; its CRDs are under
// manifests/base/crds (full: the whole schema; minimal: what Argo installs).
func ArgoModule() (string, error) {
	cache := os.Getenv("BENCHWRIGHT_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(base, "benchwright")
	}
	argoVersion, err := HackVersion("ARGO_VERSION")
	if err != nil {
		return "", err
	}
	wrapper := filepath.Join(cache, "build", "argo-"+argoVersion)
	cmd := exec.Command("go", "list", "-m", "-json", "github.com/argoproj/argo-workflows/v3")
	cmd.Dir = wrapper
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("no argo-workflows %s module: run hack/cluster-tools.sh argo (go list in %s: %w)", argoVersion, wrapper, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("the argo-workflows module is not downloaded (run hack/cluster-tools.sh argo)")
	}
	return mod.Dir, nil
}
