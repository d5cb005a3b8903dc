package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
)

// anyToken lets every token publish.
type anyToken struct{}

func (anyToken) AuthorizePublish(context.Context, string, string, string) error { return nil }

func (anyToken) Authenticate(context.Context, string) (artifactserver.User, error) {
	return artifactserver.User{Username: "anyone"}, nil
}

func (anyToken) MayRead(context.Context, artifactserver.User, string, string, string) (bool, error) {
	return true, nil
}

// The plain HTTP listener is read-only: a report (and its bearer token) is
// accepted over TLS only.
func TestArtifactServersPublishOverTLSOnly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store, err := artifacts.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	certDir, pool := writeCert(t)
	servers, runnables, err := artifactServers("127.0.0.1:0", artifactTLSFlags{addr: "127.0.0.1:0", certDir: certDir}, store, anyToken{}, pageSources{}, testr.New(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || len(runnables) != 1 {
		t.Fatalf("%d servers, %d runnables; want 2 and the certificate watcher", len(servers), len(runnables))
	}
	plainLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	servers[0].Listener = plainLis
	for _, s := range servers {
		go func() { _ = s.Start(ctx) }()
	}
	go func() { _ = runnables[0].Start(ctx) }()

	put := func(client *http.Client, url string) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url+"/campaigns/perf/s0-x7k2p/report.md", bytes.NewReader([]byte("# report")))
		req.Header.Set("Authorization", "Bearer t")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("PUT %s: %v", url, err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if got := put(http.DefaultClient, "http://"+plainLis.Addr().String()); got != http.StatusMethodNotAllowed {
		t.Errorf("PUT over HTTP: %d, want 405", got)
	}
	tlsClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}}
	if got := put(tlsClient, "https://"+servers[1].Listener.Addr().String()); got != http.StatusCreated {
		t.Errorf("PUT over TLS: %d, want 201", got)
	}

	if _, _, err := artifactServers("0", artifactTLSFlags{addr: ":0"}, store, anyToken{}, pageSources{}, testr.New(t)); err == nil {
		t.Error("a TLS address without a certificate directory was accepted")
	}
}

// writeCert writes a self-signed tls.crt and tls.key for localhost.
func writeCert(t *testing.T) (string, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, block := range map[string]*pem.Block{"tls.crt": {Type: "CERTIFICATE", Bytes: der}, "tls.key": {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return dir, pool
}
