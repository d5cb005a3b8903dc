// Package pki writes the real and dev clusters' certificates and
// kubeconfigs: a CA, certificates it signs, the service account key, and
// kubeconfigs for them; files that exist are kept.
package pki

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	caValidity   = 10 * 365 * 24 * time.Hour
	certValidity = 365 * 24 * time.Hour
	rsaBits      = 2048
)

// WriteCA writes a self-signed CA, DIR/ca.crt and DIR/ca.key, unless
// DIR/ca.crt exists.
func WriteCA(dir, cn string) error {
	crtFile := filepath.Join(dir, "ca.crt")
	if exists(crtFile) {
		return nil
	}
	key, err := rsa.GenerateKey(rand.Reader, rsaBits)
	if err != nil {
		return err
	}
	tmpl, err := template(pkix.Name{CommonName: cn}, caValidity)
	if err != nil {
		return err
	}
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return fmt.Errorf("creating the CA certificate: %w", err)
	}
	// The key first: a certificate without its key would be kept as done.
	if err := writeKey(filepath.Join(dir, "ca.key"), key); err != nil {
		return err
	}
	return writePEM(crtFile, "CERTIFICATE", der, 0o644)
}

// WriteCert writes DIR/NAME.key and DIR/NAME.crt, signed by DIR/ca, for
// SUBJECT ("/O=system:nodes/CN=system:node:a", as openssl -subj takes it),
// unless DIR/NAME.crt exists. With SANS ("IP:10.0.0.1,DNS:kubernetes") it is
// a serving and client certificate, else a client certificate only.
func WriteCert(dir, name, subject, sans string) error {
	crtFile := filepath.Join(dir, name+".crt")
	if exists(crtFile) {
		return nil
	}
	subj, err := parseSubject(subject)
	if err != nil {
		return err
	}
	ca, err := tls.LoadX509KeyPair(filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key"))
	if err != nil {
		return fmt.Errorf("loading the CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(ca.Certificate[0])
	if err != nil {
		return fmt.Errorf("parsing the CA certificate: %w", err)
	}
	key, err := rsa.GenerateKey(rand.Reader, rsaBits)
	if err != nil {
		return err
	}
	tmpl, err := template(subj, certValidity)
	if err != nil {
		return err
	}
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if sans != "" {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		if tmpl.IPAddresses, tmpl.DNSNames, err = parseSANs(sans); err != nil {
			return err
		}
	}
	signer, ok := ca.PrivateKey.(crypto.Signer)
	if !ok {
		return fmt.Errorf("the CA key (%T) cannot sign", ca.PrivateKey)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, key.Public(), signer)
	if err != nil {
		return fmt.Errorf("signing %s: %w", name, err)
	}
	if err := writeKey(filepath.Join(dir, name+".key"), key); err != nil {
		return err
	}
	return writePEM(crtFile, "CERTIFICATE", der, 0o644)
}

// WriteServiceAccountKey writes the key pair that signs and checks service
// account tokens, DIR/sa.key and DIR/sa.pub, unless DIR/sa.key exists.
func WriteServiceAccountKey(dir string) error {
	keyFile := filepath.Join(dir, "sa.key")
	if exists(keyFile) {
		return nil
	}
	key, err := rsa.GenerateKey(rand.Reader, rsaBits)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub, 0o644); err != nil {
		return err
	}
	return writeKey(keyFile, key)
}

// template is a certificate template for SUBJECT, valid from a minute ago
// (clocks of the processes that check it may differ a little) for VALIDITY.
func template(subject pkix.Name, validity time.Duration) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(validity),
	}, nil
}

// parseSubject reads a subject as openssl's -subj: /KEY=VALUE/... with the
// keys O, OU and CN. Kubernetes takes the CN as the user and each O as a group.
func parseSubject(s string) (pkix.Name, error) {
	var name pkix.Name
	if !strings.HasPrefix(s, "/") {
		return name, fmt.Errorf("subject %q: want /KEY=VALUE/KEY=VALUE", s)
	}
	for _, part := range strings.Split(s[1:], "/") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || v == "" {
			return name, fmt.Errorf("subject %q: %q is not KEY=VALUE", s, part)
		}
		switch k {
		case "CN":
			name.CommonName = v
		case "O":
			name.Organization = append(name.Organization, v)
		case "OU":
			name.OrganizationalUnit = append(name.OrganizationalUnit, v)
		default:
			return name, fmt.Errorf("subject %q: unknown key %s (O, OU or CN)", s, k)
		}
	}
	if name.CommonName == "" {
		return name, fmt.Errorf("subject %q has no CN", s)
	}
	return name, nil
}

// parseSANs reads subject alternative names as openssl's subjectAltName:
// IP:ADDRESS and DNS:NAME, separated by commas.
func parseSANs(s string) (ips []net.IP, names []string, err error) {
	for _, san := range strings.Split(s, ",") {
		kind, v, _ := strings.Cut(strings.TrimSpace(san), ":")
		switch kind {
		case "IP":
			ip := net.ParseIP(v)
			if ip == nil {
				return nil, nil, fmt.Errorf("SAN %q: not an IP address", san)
			}
			ips = append(ips, ip)
		case "DNS":
			if v == "" {
				return nil, nil, fmt.Errorf("SAN %q: no name", san)
			}
			names = append(names, v)
		default:
			return nil, nil, fmt.Errorf("SAN %q: want IP:ADDRESS or DNS:NAME", san)
		}
	}
	return ips, names, nil
}

func writeKey(file string, key *rsa.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(file, "PRIVATE KEY", der, 0o600)
}

// writePEM writes one PEM block to FILE through a temporary file, so FILE is
// either whole or absent.
func writePEM(file, kind string, der []byte, mode os.FileMode) error {
	return writeFile(file, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), mode)
}

func writeFile(file string, data []byte, mode os.FileMode) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

func exists(file string) bool {
	_, err := os.Stat(file)
	return !errors.Is(err, os.ErrNotExist)
}
