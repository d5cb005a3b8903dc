package main

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchwright/benchwright/hack/clusterkit/pki"
)

// testTLS makes a CA and the endpoint's certificate for 127.0.0.1 with the
// real cluster's pki, and loads them as realgke and the manager do.
func testTLS(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	dir := t.TempDir()
	if err := pki.WriteCA(dir, "realgke-test-ca"); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteCert(dir, "gke", "/CN=realgke", "IP:127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "gke.crt"), filepath.Join(dir, "gke.key"))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("the CA is not PEM")
	}
	return cert, pool
}
