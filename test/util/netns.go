package util

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// parentNetNSEnv carries the parent's network namespace into the test
// binary's re-run: its presence says "you run inside unshare -n".
const parentNetNSEnv = "BENCHWRIGHT_TEST_PARENT_NETNS"

// InOwnNetNS runs the calling test again, alone, in a network namespace of
// its own, so that it may change the kernel's net.* sysctls without touching
// the machine's: the test binary runs itself under `unshare -n`, with env
// ("KEY=value") added to its environment.
// In that re-run it returns true, once it has checked that the namespace is
// not the parent's: the caller then does the work. In the parent it returns
// false once the re-run passed, and fails the test when it did not. Where
// the namespace cannot be made (no unshare, no CAP_SYS_ADMIN) it skips,
// except in CI, which runs as root and must run the test.
func InOwnNetNS(t *testing.T, env ...string) bool {
	t.Helper()
	if parent := os.Getenv(parentNetNSEnv); parent != "" {
		self, err := os.Readlink("/proc/self/ns/net")
		if err != nil || self == parent {
			t.Fatalf("still in the parent's network namespace %s (%v): refusing to touch the machine's sysctls", self, err)
		}
		return true
	}
	skip := t.Skipf
	if os.Getenv("CI") != "" {
		skip = t.Fatalf
	}
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		skip("cannot read /proc/self/ns/net: %v", err)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skip("unshare (util-linux) is not installed")
	}
	cmd := exec.Command(unshare, "-n", os.Args[0], "-test.run="+onlyTest(t.Name()), "-test.count=1", "-test.v")
	cmd.Env = append(append(os.Environ(), parentNetNSEnv+"="+self), env...)
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "unshare failed") {
		skip("unshare -n is not permitted here (it needs CAP_SYS_ADMIN: root, or a user namespace): %s", strings.TrimSpace(string(out)))
	}
	t.Logf("the run inside unshare -n:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the run in a new network namespace did not pass (%v)", err)
	}
	return false
}

// onlyTest is the -test.run pattern of the test named name alone (a
// subtest's levels are matched one by one).
func onlyTest(name string) string {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}
