package results

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/nodefacts"
)

func TestNodeLabelsCarryTheFacts(t *testing.T) {
	n := NodeInfo{Placement: "COMPACT", ThreadsPerCore: 1, FirewallRules: "0", Facts: &nodefacts.Facts{
		CPUMHz: 3099.5, SMTActive: "0", MTU: 8896, SELinux: "absent", Boost: "0",
		Mitigations: map[string]string{"meltdown": "Vulnerable", "mds": "Not affected"},
	}}
	want := map[string]string{
		LabelPlacement: "COMPACT", LabelThreadsPerCore: "1", LabelFirewallRules: "0",
		"cpu_mhz": "3099.5", LabelSMT: "0", LabelMTU: "8896", LabelSELinux: "absent", LabelMitigations: "off",
		LabelBoost: "off",
	}
	if got := n.NodeLabels(); !reflect.DeepEqual(got, want) {
		t.Errorf("NodeLabels() = %v, want %v", got, want)
	}
	if got := (NodeInfo{}).NodeLabels(); len(got) != 0 {
		t.Errorf("a node without facts has labels %v", got)
	}
}

func TestNodesFileRecordsTheFacts(t *testing.T) {
	n := NodeInfo{Hostname: "a", FirewallRules: FirewallUnknown, Facts: &nodefacts.Facts{
		CPUMHz: 2000, MTU: 1460, MTUInterface: "eth0", Network: "pod", SELinux: "enforcing",
		Mitigations: map[string]string{"retbleed": "Mitigation: IBRS"},
	}}
	files, err := EncodeSummaryFiles(RunSummary{Nodes: []NodeInfo{n}})
	if err != nil {
		t.Fatal(err)
	}
	var nodes string
	for _, f := range files {
		if f.Name == NodesFile {
			nodes = string(f.Data)
		}
	}
	for _, want := range []string{`"firewall_rules": "unknown"`, `"cpu_mhz": 2000`, `"mtu": 1460`, `"mtu_interface": "eth0"`, `"network": "pod"`, `"selinux": "enforcing"`, `"retbleed": "Mitigation: IBRS"`} {
		if !strings.Contains(nodes, want) {
			t.Errorf("nodes.json lacks %s:\n%s", want, nodes)
		}
	}
	var back []NodeInfo
	if err := json.Unmarshal([]byte(nodes), &back); err != nil || !reflect.DeepEqual(back[0], n) {
		t.Errorf("nodes.json does not read back: %+v, %v", back, err)
	}
}
