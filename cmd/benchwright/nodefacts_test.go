package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchwright/benchwright/internal/nodefacts"
)

func TestNodefactsCommand(t *testing.T) {
	root := t.TempDir()
	for p, content := range map[string]string{
		"sys/class/net/eth0/mtu": "1460\n",
		"proc/cpuinfo":           "processor\t: 0\ncpu MHz\t\t: 2800.000\n",
		"proc/self/status":       "Cpus_allowed_list:\t0\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"nodefacts", "--root", root, "--network", "host"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	f, err := nodefacts.ParseLine(out.Bytes())
	if err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if f.CPUMHz != 2800 || f.MTU != 1460 || f.MTUInterface != "eth0" || f.Network != "host" {
		t.Errorf("facts %+v", f)
	}
	cmd = newRootCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"nodefacts", "--network", "bridge"})
	if err := cmd.Execute(); err == nil {
		t.Error("--network bridge accepted")
	}
}
