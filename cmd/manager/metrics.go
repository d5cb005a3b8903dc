package main

import (
	"crypto/tls"

	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/benchwright/benchwright/internal/metricsauth"
)

// metricsOptions serve /metrics on addr. Secure, as kubebuilder scaffolds:
// HTTPS (a self-signed certificate), HTTP/1.1 only (HTTP/2 stream resets,
// CVE-2023-44487), and only to a client whose bearer token passes a
// TokenReview and may get /metrics (a SubjectAccessReview: the chart's
// ClusterRole <name>-metrics-reader; metricsauth, which does what
// controller-runtime's filters package does without linking
// k8s.io/apiserver). Not secure: plain HTTP to anyone.
func metricsOptions(addr string, secure bool) metricsserver.Options {
	if !secure {
		return metricsserver.Options{BindAddress: addr}
	}
	return metricsserver.Options{
		BindAddress:    addr,
		SecureServing:  true,
		FilterProvider: metricsauth.WithAuthenticationAndAuthorization,
		TLSOpts:        []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	}
}
