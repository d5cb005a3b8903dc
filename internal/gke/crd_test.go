package gke

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"testing"
)

// The CRD refuses the sysctls GKE refuses, and accepts the ones it accepts: its
// CEL list is GKE's allow-list.
func TestCRDAllowsGKEsSysctls(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	crd, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "config", "crd", "bases", "benchwright.io_benchmarkpools.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`self\.all\(s, s\.name in \[([^\]]*)\]\)`).FindSubmatch(crd)
	if rule == nil {
		t.Fatal("no sysctl allow-list rule in the BenchmarkPool CRD")
	}
	var inCRD []string
	for _, m := range regexp.MustCompile(`'([^']+)'`).FindAllSubmatch(rule[1], -1) {
		inCRD = append(inCRD, string(m[1]))
	}
	slices.Sort(inCRD)
	if !slices.Equal(inCRD, AllowedSysctls()) {
		t.Errorf("the CRD allows %v\nGKE allows %v", inCRD, AllowedSysctls())
	}
}
