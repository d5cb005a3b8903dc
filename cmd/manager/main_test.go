package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/gke"
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

// Endpoint flags without a GKE cluster would be ignored: they are refused.
func TestGKEEndpointNeedsACluster(t *testing.T) {
	endpoint := gke.Endpoint{Address: "10.99.0.1:8443", WithoutAuthentication: true}
	if _, err := gkeClientOptions(controllerConfig{gkeEndpoint: endpoint}); err == nil || !strings.Contains(err.Error(), "need a GKE cluster to call") {
		t.Errorf("an endpoint without a cluster: %v, want it refused", err)
	}
	cfg := controllerConfig{gkeEndpoint: endpoint, gkeCluster: gke.Cluster{Project: "benchwright-real", Location: "us-central1-a", Name: "real"}}
	if opts, err := gkeClientOptions(cfg); err != nil || len(opts) != 2 {
		t.Errorf("an endpoint with a cluster: %d options, %v; want the endpoint and no credentials", len(opts), err)
	}
	cfg.gkeEndpoint.CAFile = filepath.Join(t.TempDir(), "ca.crt")
	if _, err := gkeClientOptions(cfg); err == nil || !strings.Contains(err.Error(), cfg.gkeEndpoint.CAFile) {
		t.Errorf("a missing CA file: %v, want an error naming it", err)
	}
}
