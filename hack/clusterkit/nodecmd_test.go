package main

import (
	"strings"
	"testing"
)

func TestNodeSpecFromTheCommandLine(t *testing.T) {
	spec, err := parseNodeSpec("real-node-1", []string{"a=b", "--taint", "benchwright.io/pool=p:NoSchedule", "c="})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Labels["a"] != "b" || spec.Labels["c"] != "" || len(spec.Taints) != 1 || spec.Taints[0].ToString() != "benchwright.io/pool=p:NoSchedule" {
		t.Errorf("spec %+v", spec)
	}
	for _, bad := range [][]string{{"Not_A_Name"}, {"n", "label"}, {"n", "--taint", "k=v"}} {
		if _, err := parseNodeSpec(bad[0], bad[1:]); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if err := nodeCommand([]string{"/nonexistent/host.json", "up", "1"}); err == nil || !strings.Contains(err.Error(), "host.json") {
		t.Errorf("a missing host file: %v", err)
	}
}
