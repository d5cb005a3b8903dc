// Package util holds helpers shared by the test packages.
package util

import (
	"fmt"
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
