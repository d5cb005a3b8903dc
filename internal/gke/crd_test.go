package gke

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/gke/limits"
)

func poolCRD(t *testing.T) []byte {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	crd, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "config", "crd", "bases", "benchwright.io_benchmarkpools.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return crd
}

// The CRD's CEL rules name the machine series GKE's limits name, in the
// order the rules stand: compact placement, Tier_1, threads per core, shared
// core.
func TestCRDStatesGKEsLimits(t *testing.T) {
	lists := regexp.MustCompile(`matches\(''\^\(([a-z0-9|-]+)\)`).FindAllSubmatch(poolCRD(t), -1)
	want := [][]string{limits.CompactPlacementSeries, limits.Tier1Series, limits.NoThreadsPerCore, limits.SharedCore}
	if len(lists) != len(want) {
		t.Fatalf("%d series lists in the CRD's rules, want %d", len(lists), len(want))
	}
	for i, m := range lists {
		got := strings.Split(string(m[1]), "|")
		slices.Sort(got)
		if w := slices.Sorted(slices.Values(want[i])); !slices.Equal(got, w) {
			t.Errorf("rule %d names %v, GKE's limits %v", i, got, w)
		}
	}
}

// The CRD refuses the sysctls GKE refuses, and accepts the ones it accepts: its
// CEL list is GKE's allow-list.
func TestCRDAllowsGKEsSysctls(t *testing.T) {
	crd := poolCRD(t)
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
