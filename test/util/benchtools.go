package util

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchTools is the directory of the real benchmark programs of set
// (openmpi or mpich: OSU, IMB-MPI1, ior; fabtests) that hack/bench-tools.sh
// builds from ../shared/src: $BENCH_TOOLS_<SET> (make test sets it), else the
// script's cached build, made now when missing. The test skips when the
// compiler or the sources are missing, and fails instead under CI, which has
// both.
func BenchTools(t testing.TB, set string) string {
	t.Helper()
	key := "BENCH_TOOLS_" + strings.ToUpper(set)
	if dir := os.Getenv(key); dir != "" {
		return dir
	}
	skip := t.Skipf
	if os.Getenv("CI") != "" {
		skip = t.Fatalf
	}
	need := map[string]string{"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich", "fabtests": "gcc"}[set]
	if _, err := exec.LookPath(need); err != nil {
		skip("%s is not installed: the real %s tools cannot be built (make test-deps)", need, set)
	}
	src := filepath.Join(RepoRoot(), "..", "shared", "src")
	if s := os.Getenv("SOURCES"); s != "" {
		src = s
	}
	if _, err := os.Stat(src); err != nil {
		skip("no benchmark sources at %s (set SOURCES): the real %s tools cannot be built", src, set)
	}
	cmd := exec.Command(filepath.Join(RepoRoot(), "hack", "bench-tools.sh"), set)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/bench-tools.sh %s: %v", set, err)
	}
	for line := range strings.Lines(string(out)) {
		if dir, ok := strings.CutPrefix(strings.TrimSpace(line), key+"="); ok {
			return dir
		}
	}
	t.Fatalf("hack/bench-tools.sh %s printed no %s= line: %q", set, key, out)
	return ""
}
