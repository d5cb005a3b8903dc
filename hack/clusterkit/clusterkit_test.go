package main

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

func TestPKI(t *testing.T) {
	dir := t.TempDir()
	if err := run([]string{"ca", dir, "test-ca"}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"cert", dir, "apiserver", "/CN=kube-apiserver", "IP:10.99.0.1,IP:127.0.0.1,DNS:kubernetes.default.svc"}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"cert", dir, "node-1", "/O=system:nodes/CN=system:node:real-node-1"}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"sa-key", dir}); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(load(t, dir, "ca").Leaf)

	server := load(t, dir, "apiserver").Leaf
	if _, err := server.Verify(x509.VerifyOptions{Roots: roots, DNSName: "kubernetes.default.svc"}); err != nil {
		t.Errorf("the serving certificate does not verify for kubernetes.default.svc: %v", err)
	}
	if got := server.IPAddresses; len(got) != 2 || got[0].String() != "10.99.0.1" {
		t.Errorf("IP SANs = %v, want 10.99.0.1 and 127.0.0.1", got)
	}

	client := load(t, dir, "node-1").Leaf
	if _, err := client.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the client certificate does not verify: %v", err)
	}
	if slices.Contains(client.ExtKeyUsage, x509.ExtKeyUsageServerAuth) {
		t.Error("a certificate without SANs may serve")
	}
	if client.Subject.CommonName != "system:node:real-node-1" || !slices.Equal(client.Subject.Organization, []string{"system:nodes"}) {
		t.Errorf("subject = %v, want O=system:nodes CN=system:node:real-node-1", client.Subject)
	}
	if fi, err := os.Stat(filepath.Join(dir, "node-1.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("node-1.key: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
	for _, f := range []string{"sa.key", "sa.pub"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}

	// Idempotent: what exists is kept.
	before, _ := os.ReadFile(filepath.Join(dir, "node-1.crt"))
	if err := run([]string{"cert", dir, "node-1", "/CN=other"}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "node-1.crt")); string(after) != string(before) {
		t.Error("an existing certificate was replaced")
	}
}

func load(t *testing.T, dir, name string) tls.Certificate {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key"))
	if err != nil {
		t.Fatal(err)
	}
	if pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
		t.Fatal(err)
	}
	return pair
}

func TestBadSubjectsAndSANs(t *testing.T) {
	dir := t.TempDir()
	if err := run([]string{"ca", dir, "test-ca"}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"cert", dir, "a", "CN=no-slash"},
		{"cert", dir, "a", "/O=only-org"},
		{"cert", dir, "a", "/C=US/CN=x"},
		{"cert", dir, "a", "/CN=x", "IP:not-an-ip"},
		{"cert", dir, "a", "/CN=x", "URI:https://x"},
	} {
		if err := run(args); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

func TestKubeconfigs(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"ca", dir, "test-ca"},
		{"cert", dir, "admin", "/O=system:masters/CN=admin"},
		{"kubeconfig", filepath.Join(dir, "admin.kubeconfig"), "real", "https://10.99.0.1:6443", filepath.Join(dir, "ca.crt"), "admin"},
		{"impersonate", filepath.Join(dir, "admin.kubeconfig"), filepath.Join(dir, "manager.kubeconfig"), "system:serviceaccount:ns:sa"},
	} {
		if err := run(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	admin, err := clientcmd.LoadFromFile(filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := admin.Contexts[admin.CurrentContext]
	if admin.CurrentContext != "real" || ctx.Cluster != "real" || ctx.AuthInfo != "admin" {
		t.Errorf("context %q = %+v, want real: cluster real, user admin", admin.CurrentContext, ctx)
	}
	if c := admin.Clusters["real"]; c.Server != "https://10.99.0.1:6443" || len(c.CertificateAuthorityData) == 0 {
		t.Errorf("cluster = %+v", c)
	}
	if u := admin.AuthInfos["admin"]; len(u.ClientCertificateData) == 0 || len(u.ClientKeyData) == 0 {
		t.Error("the client certificate is not embedded")
	}

	manager, err := clientcmd.LoadFromFile(filepath.Join(dir, "manager.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	if u := manager.AuthInfos[manager.Contexts[manager.CurrentContext].AuthInfo]; u.Impersonate != "system:serviceaccount:ns:sa" || len(u.ClientKeyData) == 0 {
		t.Errorf("the impersonating user = %+v", u)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "manager.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Impersonate.UserName != "system:serviceaccount:ns:sa" {
		t.Errorf("client-go impersonates %q", cfg.Impersonate.UserName)
	}
}

// A kubeconfig that names its files (as kwokctl writes) is flattened: the
// manager's copy works wherever it is read from.
func TestImpersonateEmbedsFiles(t *testing.T) {
	dir := t.TempDir()
	if err := run([]string{"ca", dir, "test-ca"}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"cert", dir, "admin", "/CN=admin"}); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "kubeconfig.yaml")
	if err := os.WriteFile(in, []byte(`apiVersion: v1
kind: Config
clusters:
- name: kwok
  cluster: {server: "https://127.0.0.1:6443", certificate-authority: ca.crt}
- name: other
  cluster: {server: "https://example:6443"}
users:
- name: kwok
  user: {client-certificate: admin.crt, client-key: admin.key}
contexts:
- name: kwok
  context: {cluster: kwok, user: kwok}
- name: other
  context: {cluster: other, user: kwok}
current-context: kwok
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "manager.kubeconfig")
	if err := run([]string{"impersonate", in, out, "system:serviceaccount:a:b"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Contexts) != 1 || len(cfg.Clusters) != 1 {
		t.Errorf("not minified: contexts %d, clusters %d", len(cfg.Contexts), len(cfg.Clusters))
	}
	if len(cfg.Clusters["kwok"].CertificateAuthorityData) == 0 || len(cfg.AuthInfos["kwok"].ClientKeyData) == 0 {
		t.Error("the files are not embedded")
	}
}

func TestWaitHTTP(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	if err := run([]string{"wait", "--timeout", "10s", "http", srv.URL}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d requests, want 3", calls.Load())
	}

	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "starting", http.StatusServiceUnavailable)
	}))
	defer never.Close()
	err := run([]string{"wait", "--timeout", "1s", "http", never.URL})
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "starting") {
		t.Errorf("err = %v, want the last answer (503 starting)", err)
	}

	// A process that has exited will not become ready: no need to wait out the timeout.
	began := time.Now()
	err = run([]string{"wait", "--timeout", "30s", "--pid", "999999999", "http", never.URL})
	if err == nil || !strings.Contains(err.Error(), "exited") || time.Since(began) > 5*time.Second {
		t.Errorf("err = %v after %s, want at once: process exited", err, time.Since(began))
	}
}

func TestWaitUsage(t *testing.T) {
	for _, args := range [][]string{
		{"wait"},
		{"wait", "readyz"}, // no kubeconfig
		{"wait", "http"},
		{"wait", "--kubeconfig", "x", "nosuchcheck"},
	} {
		if err := run(args); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
