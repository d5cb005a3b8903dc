package main

import (
	"net"
	"testing"
)

// The plain artifact port authenticates no one, so a manager run without
// the chart's flags must not serve it beyond its own host.
func TestPlainArtifactPortDefaultsToLoopback(t *testing.T) {
	host, _, err := net.SplitHostPort(defaultArtifactAddr)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Errorf("--artifact-server-bind-address defaults to %q, want a loopback address", defaultArtifactAddr)
	}
}
