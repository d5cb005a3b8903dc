package gke

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strconv"

	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Endpoint is where the GKE API is reached and how. The zero Endpoint is
// Google's (container.googleapis.com:443), trusted through the system's roots,
// called with Application Default Credentials.
type Endpoint struct {
	// Address is the API's HOST:PORT: Private Service Connect, a proxy, a fake
	// ("": Google's).
	Address string
	// CAFile is a PEM bundle of the CAs that alone are trusted for the
	// endpoint's certificate, in place of the system's roots ("": those).
	CAFile string
	// WithoutAuthentication sends no credentials, for an endpoint that needs
	// none or a proxy that adds them; no Application Default Credentials are
	// looked for.
	WithoutAuthentication bool
}

// ClientOptions are the options of New that reach e. A bad address, an
// unreadable CA file or one without a certificate is an error that says
// what to fix.
func ClientOptions(e Endpoint) ([]option.ClientOption, error) {
	var opts []option.ClientOption
	if e.Address != "" {
		if err := checkAddress(e.Address); err != nil {
			return nil, err
		}
		opts = append(opts, option.WithEndpoint(e.Address))
	}
	if e.CAFile != "" {
		roots, err := readCAFile(e.CAFile)
		if err != nil {
			return nil, err
		}
		// The library's own TLS credentials come first: the last ones win.
		creds := credentials.NewTLS(&tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12})
		opts = append(opts, option.WithGRPCDialOption(grpc.WithTransportCredentials(creds)))
	}
	if e.WithoutAuthentication {
		if e.Address == "" {
			return nil, fmt.Errorf("--gke-without-authentication needs --gke-endpoint: Google's own GKE API refuses calls without credentials")
		}
		opts = append(opts, option.WithoutAuthentication())
	}
	return opts, nil
}

// checkAddress accepts HOST:PORT with a port number.
func checkAddress(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && host == "" {
		err = fmt.Errorf("no host")
	}
	if n, perr := strconv.ParseUint(port, 10, 16); err == nil && (perr != nil || n == 0) {
		err = fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	if err != nil {
		return fmt.Errorf("GKE endpoint %q: want HOST:PORT, e.g. container.googleapis.com:443 or 10.99.0.1:8443: %w", addr, err)
	}
	return nil
}

// readCAFile is the pool of the PEM certificates in file.
func readCAFile(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the GKE endpoint's CA file: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("GKE endpoint's CA file %s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", file)
	}
	return roots, nil
}
