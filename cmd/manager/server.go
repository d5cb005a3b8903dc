package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/metrics"
)

// artifactServerShutdown bounds the wait for open requests when the manager stops.
const artifactServerShutdown = 10 * time.Second

// artifactTLSFlags configure the artifact server's HTTPS listener, the only
// one that accepts published reports (their bearer tokens never travel in
// clear text).
type artifactTLSFlags struct {
	addr    string
	certDir string
}

func (f *artifactTLSFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "artifact-server-tls-bind-address", "0", "address the artifact server binds to over HTTPS, where campaign reports are also published (0 disables it, and publishing)")
	fs.StringVar(&f.certDir, "artifact-server-cert-dir", "", "directory holding tls.crt and tls.key of the HTTPS artifact server (reloaded when they change)")
}

// addArtifactServer runs the artifact server on every replica, leader or not:
// over HTTP on addr, to every reader (the chart binds it to the pod's
// loopback address, which only `kubectl port-forward` reaches), and over
// HTTPS on tlsFlags.addr, to the bearer tokens a TokenReview and a
// SubjectAccessReview allow: reads of the runs of benchmarks the user may
// get, and campaign reports published. "0" disables a listener. The two
// share one cap on requests in progress.
func addArtifactServer(mgr ctrl.Manager, addr string, tlsFlags artifactTLSFlags, store *artifacts.Store, history artifactserver.HistoryReader) error {
	log := ctrl.Log.WithName("artifact-server")
	pages := pageSources{history: history, campaigns: workflowRuns{reader: mgr.GetAPIReader()}}
	servers, runnables, err := artifactServers(addr, tlsFlags, store, &artifactserver.KubeAuthorizer{Client: mgr.GetClient()}, pages, log)
	if err != nil {
		return err
	}
	for _, r := range runnables {
		if err := mgr.Add(r); err != nil {
			return err
		}
	}
	for _, s := range servers {
		if err := mgr.Add(s); err != nil {
			return err
		}
	}
	return nil
}

// artifactServers builds the listeners of addArtifactServer, and what else
// must run with them (the certificate watcher).
func artifactServers(addr string, tlsFlags artifactTLSFlags, store *artifacts.Store, auth artifactserver.Authorizer, pages pageSources, log logr.Logger) ([]*manager.Server, []manager.Runnable, error) {
	var servers []*manager.Server
	var runnables []manager.Runnable
	limit := artifactserver.NewLimiter(artifactserver.MaxConcurrentRequests, artifactserver.QueueWait)
	if on(addr) {
		servers = append(servers, artifactServer("artifact server", addr, pages.add(artifactserver.New(store, log).WithLimiter(limit))))
	}
	if !on(tlsFlags.addr) {
		log.Info("publishing campaign reports is off: no --artifact-server-tls-bind-address")
		return servers, nil, nil
	}
	if tlsFlags.certDir == "" {
		return nil, nil, fmt.Errorf("--artifact-server-tls-bind-address needs --artifact-server-cert-dir")
	}
	watcher, err := certwatcher.New(filepath.Join(tlsFlags.certDir, "tls.crt"), filepath.Join(tlsFlags.certDir, "tls.key"))
	if err != nil {
		return nil, nil, fmt.Errorf("loading the artifact server's certificate: %w", err)
	}
	runnables = append(runnables, watcher)
	lis, err := net.Listen("tcp", tlsFlags.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listening on %s: %w", tlsFlags.addr, err)
	}
	s := artifactServer("artifact server (TLS)", tlsFlags.addr, pages.add(artifactserver.NewPublishing(store, auth, log).WithLimiter(limit)))
	s.Listener = tls.NewListener(lis, &tls.Config{GetCertificate: watcher.GetCertificate, MinVersion: tls.VersionTLS12})
	return append(servers, s), runnables, nil
}

// pageSources are what the artifact server's pages read besides the store:
// the results database's history and the campaigns' Workflows (nil: none).
type pageSources struct {
	history   artifactserver.HistoryReader
	campaigns artifactserver.CampaignRuns
}

func (p pageSources) add(h *artifactserver.Handler) *artifactserver.Handler {
	return h.WithHistory(p.history).WithCampaignRuns(p.campaigns)
}

func on(addr string) bool { return addr != "" && addr != "0" }

func artifactServer(name, addr string, h http.Handler) *manager.Server {
	timeout := artifactServerShutdown
	return &manager.Server{
		Name: name,
		// No ReadTimeout or WriteTimeout: either would cut a 64 MiB download
		// to a slow client. The handler sets a deadline per write (30 s
		// without progress, 15 min in all) and one for a published report's
		// body (2 min); headers have 10 s.
		Server: &http.Server{
			Addr:              addr,
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    64 << 10,
		},
		OnlyServeWhenLeader: false,
		ShutdownTimeout:     &timeout,
	}
}

// registerMetrics adds the benchmark metrics read from the manager's cache
// to the registry its metrics endpoint serves.
func registerMetrics(mgr ctrl.Manager) error {
	return metrics.Register(ctrlmetrics.Registry, mgr.GetClient(), ctrl.Log.WithName("metrics"))
}
