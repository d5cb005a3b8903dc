package chart_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/test/util"
)

// The chart is the one install path: config/ has none of its
// ValidatingAdmissionPolicies (the manager's namespace, campaigns,
// allowUnlistedSysctls), so nothing there or in the README offers to
// install it as a whole.
func TestConfigIsNoInstallPath(t *testing.T) {
	root := util.RepoRoot()
	if _, err := os.Stat(filepath.Join(root, "config", "default")); err == nil {
		t.Error("config/default installs the manager without the chart's admission policies")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(readme), "apply -k") {
		t.Error("the README offers kubectl apply -k: the chart is the install path")
	}
}
