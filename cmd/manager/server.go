package main

import (
	"net/http"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/metrics"
)

// artifactServerShutdown bounds the wait for open requests when the manager stops.
const artifactServerShutdown = 10 * time.Second

// addArtifactServer runs the artifact server on addr ("0" disables it) on
// every replica, leader or not: it reads the store, and writes only campaign
// reports that a TokenReview and a SubjectAccessReview let a client publish.
func addArtifactServer(mgr ctrl.Manager, addr string, store *artifacts.Store) error {
	if addr == "0" || addr == "" {
		return nil
	}
	log := ctrl.Log.WithName("artifact-server")
	timeout := artifactServerShutdown
	return mgr.Add(&manager.Server{
		Name: "artifact server",
		Server: &http.Server{
			Addr:              addr,
			Handler:           artifactserver.NewPublishing(store, artifactserver.KubeAuthorizer{Client: mgr.GetClient()}, log),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
		},
		OnlyServeWhenLeader: false,
		ShutdownTimeout:     &timeout,
	})
}

// registerMetrics adds the benchmark metrics read from the manager's cache
// to the registry its metrics endpoint serves.
func registerMetrics(mgr ctrl.Manager) error {
	return metrics.Register(ctrlmetrics.Registry, mgr.GetClient(), ctrl.Log.WithName("metrics"))
}
