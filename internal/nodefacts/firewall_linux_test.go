package nodefacts

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// netnsEnv says "you run inside unshare -n" to the re-executed test.
const netnsEnv = "BENCHWRIGHT_NODEFACTS_PARENT_NETNS"

func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// TestFirewallRulesInANewNetworkNamespace sets real rules with the real
// iptables-legacy, ip6tables-legacy and nft in a network namespace of its
// own (the test binary runs itself again under unshare -n) and counts them.
func TestFirewallRulesInANewNetworkNamespace(t *testing.T) {
	if parent := os.Getenv(netnsEnv); parent != "" {
		countInThisNamespace(t, parent)
		return
	}
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		skipOrFail(t, "cannot read /proc/self/ns/net: %v", err)
	}
	for _, tool := range []string{"unshare", "iptables-legacy", "ip6tables-legacy", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipOrFail(t, "%s is not installed", tool)
		}
	}
	cmd := exec.Command("unshare", "-n", os.Args[0], "-test.run=^TestFirewallRulesInANewNetworkNamespace$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), netnsEnv+"="+self)
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "unshare failed") {
		skipOrFail(t, "unshare -n is not permitted here: %s", strings.TrimSpace(string(out)))
	}
	t.Logf("the run inside unshare -n:\n%s", out)
	var exit *exec.ExitError
	if errors.As(err, &exit) || !strings.Contains(string(out), "--- PASS: TestFirewallRulesInANewNetworkNamespace") {
		t.Fatalf("the run in a new network namespace did not pass (%v)", err)
	}
}

func countInThisNamespace(t *testing.T, parent string) {
	if self, err := os.Readlink("/proc/self/ns/net"); err != nil || self == parent {
		t.Fatalf("still in the parent's network namespace (%v): refusing to touch the machine's firewall", err)
	}
	if n, err := FirewallRules(); err != nil || n != 0 {
		t.Fatalf("a new namespace has %d rules (%v), want 0", n, err)
	}
	run := func(argv ...string) {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	// 3 legacy IPv4 rules: one in a built-in chain, two in a user chain (the
	// last an explicit RETURN, before the chain's implicit one).
	run("iptables-legacy", "-A", "INPUT", "-p", "tcp", "--dport", "22", "-j", "ACCEPT")
	run("iptables-legacy", "-N", "BW")
	run("iptables-legacy", "-A", "BW", "-s", "10.0.0.0/8", "-j", "DROP")
	run("iptables-legacy", "-A", "BW", "-j", "RETURN")
	run("iptables-legacy", "-t", "nat", "-L") // a second table, empty
	// 1 legacy IPv6 rule.
	run("ip6tables-legacy", "-A", "OUTPUT", "-p", "udp", "-j", "ACCEPT")
	// 2 nftables rules.
	run("nft", "add", "table", "inet", "bw")
	run("nft", "add", "chain", "inet", "bw", "in", "{ type filter hook input priority 0; }")
	run("nft", "add", "rule", "inet", "bw", "in", "tcp", "dport", "80", "accept")
	run("nft", "add", "rule", "inet", "bw", "in", "counter")
	n, err := FirewallRules()
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Errorf("counted %d rules, want 6 (3 iptables-legacy, 1 ip6tables-legacy, 2 nft)", n)
	}
}

func FuzzCountNftMessages(f *testing.F) {
	f.Add([]byte{16, 0, 0, 0, 6, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, n, err := countNftMessages(b)
		if err == nil && n > len(b)/16 {
			t.Fatalf("%d rules in %d bytes", n, len(b))
		}
	})
}
