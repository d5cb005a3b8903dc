package gke_test

import (
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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
)

// serveTLS serves a fake GKE with the zonal cluster over TLS on 127.0.0.1,
// its certificate signed by a CA of the test, and returns its address and
// that CA's PEM file.
func serveTLS(t *testing.T) (addr, caFile string) {
	t.Helper()
	caPEM, cert := testPKI(t)
	caFile = filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := fakegke.New(fakegke.WithCluster(zonal.Parent()))
	creds := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	go func() { _ = srv.Serve(lis, grpc.Creds(creds)) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String(), caFile
}

// testPKI makes a CA and a serving certificate for 127.0.0.1 that it signs.
func testPKI(t *testing.T) (caPEM []byte, serving tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "fake GKE"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// connect is a provider for e.
func connect(t *testing.T, e gke.Endpoint) *gke.Provider {
	t.Helper()
	opts, err := gke.ClientOptions(e)
	if err != nil {
		t.Fatal(err)
	}
	p, err := gke.New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// The manager reaches a GKE endpoint of its own (the real cluster's fake) over
// TLS, trusting the CA file, without credentials.
func TestEndpointOverTLS(t *testing.T) {
	addr, caFile := serveTLS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	p := connect(t, gke.Endpoint{Address: addr, CAFile: caFile, WithoutAuthentication: true})
	info, err := p.Cluster(ctx, zonal, true)
	if err != nil {
		t.Fatalf("reading the cluster through the CA file: %v", err)
	}
	if info.Channel != "REGULAR" {
		t.Errorf("cluster read %+v, want the fake's REGULAR channel", info)
	}
	op, err := p.Create(ctx, zonal, request(t, "bp-tls", mpiSpec()))
	if err != nil {
		t.Fatalf("creating a pool through the CA file: %v", err)
	}
	if err := wait(ctx, p, zonal, op); err != nil {
		t.Fatalf("operation %s: %v", op, err)
	}

	// The system's roots do not know the endpoint's CA.
	_, err = connect(t, gke.Endpoint{Address: addr, WithoutAuthentication: true}).Create(ctx, zonal, request(t, "bp-roots", mpiSpec()))
	if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Errorf("without the CA file: %v, want a certificate error", err)
	}
}

func TestEndpointRefused(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.crt")
	if err := os.WriteFile(garbage, []byte("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e    gke.Endpoint
		want string
	}{
		{gke.Endpoint{Address: "127.0.0.1:8443", CAFile: garbage}, "GKE endpoint's CA file " + garbage + " holds no PEM certificate"},
		{gke.Endpoint{Address: "127.0.0.1:8443", CAFile: filepath.Join(dir, "none.crt")}, "none.crt: no such file"},
		{gke.Endpoint{Address: "10.99.0.1"}, `GKE endpoint "10.99.0.1": want HOST:PORT`},
		{gke.Endpoint{Address: ":8443"}, "no host"},
		{gke.Endpoint{Address: "10.99.0.1:https"}, `port "https" is not a number`},
		{gke.Endpoint{WithoutAuthentication: true}, "--gke-without-authentication needs --gke-endpoint"},
	} {
		if _, err := gke.ClientOptions(tc.e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error with %q", tc.e, err, tc.want)
		}
	}
}
