package main

import (
	"context"
	"fmt"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"google.golang.org/api/option"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/controllers/mpibenchmark"
	"github.com/benchwright/benchwright/controllers/networkbenchmark"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/controllers/tuningprofile"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// controllerConfig is what the controllers take from the flags.
type controllerConfig struct {
	artifactStore string
	fioImage      string
	tunerImage    string
	// nodeFactsImage is the manager's own image: its /benchwright runs the
	// node-facts step of every benchmark pod.
	nodeFactsImage string
	// hostPathPrefixes is the admin's allow-list for hostPath volumes.
	hostPathPrefixes []string
	// allowHostNetwork is the admin's leave for benchmarks on the nodes' network.
	allowHostNetwork bool
	// workers is how many benchmarks of each kind reconcile at once.
	workers    int
	mpiImages  map[benchv1.MPIImplementation]*string
	gkeCluster gke.Cluster
	// gkeDefaultZone is the zone of pools that name none on a cluster with
	// several zones.
	gkeDefaultZone string
	// gkeExcludeUpgradesFor: add a maintenance exclusion for this long (0: never).
	gkeExcludeUpgradesFor time.Duration
	// gkeAllowed are the other clusters a pool's spec may name.
	gkeAllowed []gke.Cluster
	// gkeEndpoint is where the GKE API is reached; gkeOptions reach it.
	gkeEndpoint gke.Endpoint
	gkeOptions  []option.ClientOption
	store       *artifacts.Store
	// resultsDB is --results-db; db is it open (nil: none).
	resultsDB string
	db        *resultsdb.DB
}

// setupControllers registers every controller with the manager.
func setupControllers(mgr ctrl.Manager, cfg controllerConfig) error {
	// The core/v1 client alone, for pods/log: the whole clientset would link
	// every API group's typed client into the manager.
	core, err := corev1client.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	logs := podlogs.APILogReader{Client: core}
	pools := &benchmarkpool.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorderFor("benchmarkpool-controller"),
		GKECluster: cfg.gkeCluster, GKEAllowedClusters: cfg.gkeAllowed, GKEDefaultZone: cfg.gkeDefaultZone,
		GKEExcludeUpgradesFor: cfg.gkeExcludeUpgradesFor,
	}
	if usesGKE(cfg) {
		provider, err := gke.New(context.Background(), cfg.gkeOptions...)
		if err != nil {
			return fmt.Errorf("connecting to GKE: %w", err)
		}
		pools.GKE = provider
		readCluster(provider, cfg.gkeCluster)
	}
	if err := pools.SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&storagebenchmark.Reconciler{
		Env:   benchEnv(mgr, "storagebenchmark-controller", logs, cfg),
		Image: cfg.fioImage, HostPathPrefixes: cfg.hostPathPrefixes,
	}).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&tuningprofile.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorderFor("tuningprofile-controller"), Logs: tuningprofile.APILogReader{APILogReader: logs},
		Image: cfg.tunerImage, Namespace: tuningprofile.ManagerNamespace(),
	}).SetupWithManager(mgr); err != nil {
		return err
	}
	// NetworkBenchmarks run in the OpenMPI image: benchwright, fabtests, iperf3.
	if err := (&networkbenchmark.Reconciler{
		Env:   benchEnv(mgr, "networkbenchmark-controller", logs, cfg),
		Image: *cfg.mpiImages[benchv1.OpenMPI], AllowHostNetwork: cfg.allowHostNetwork,
	}).SetupWithManager(mgr); err != nil {
		return err
	}
	// MPIBenchmarks need the MPI Operator's MPIJob: without its CRD the
	// controller could not watch, and the manager would not start at all.
	if _, err := mgr.GetRESTMapper().RESTMapping(mpiv2.SchemeGroupVersionKind.GroupKind(), mpiv2.SchemeGroupVersion.Version); err != nil {
		ctrl.Log.WithName("setup").Error(err, "the MPI Operator's MPIJob (kubeflow.org/v2beta1) is not installed: MPIBenchmarks will not run until it is and the manager restarts")
		return nil
	}
	images := map[benchv1.MPIImplementation]string{}
	for impl, image := range cfg.mpiImages {
		images[impl] = *image
	}
	return (&mpibenchmark.Reconciler{
		Env:    benchEnv(mgr, "mpibenchmark-controller", logs, cfg),
		Images: images, AllowHostNetwork: cfg.allowHostNetwork,
	}).SetupWithManager(mgr)
}

// usesGKE: gke BenchmarkPools have a cluster to make node pools in.
func usesGKE(cfg controllerConfig) bool {
	return cfg.gkeCluster != (gke.Cluster{}) || len(cfg.gkeAllowed) > 0
}

// gkeClientOptions are the options that reach the GKE endpoint of the flags;
// endpoint flags without a GKE cluster to call are refused as a mistake.
func gkeClientOptions(cfg controllerConfig) ([]option.ClientOption, error) {
	if cfg.gkeEndpoint != (gke.Endpoint{}) && !usesGKE(cfg) {
		return nil, fmt.Errorf("--gke-endpoint, --gke-ca-file and --gke-without-authentication need a GKE cluster to call: set --gke-project, --gke-location and --gke-cluster (or --gke-allowed-clusters)")
	}
	return gke.ClientOptions(cfg.gkeEndpoint)
}

// benchEnv is a benchmark controller's Env: the store, and the manager's
// image for the node-facts step.
func benchEnv(mgr ctrl.Manager, name string, logs podlogs.LogReader, cfg controllerConfig) benchrun.Env {
	e := benchrun.NewEnv(mgr, name, logs, cfg.store)
	e.NodeFactsImage = cfg.nodeFactsImage
	e.ResultsDB = cfg.db
	e.Workers = cfg.workers
	return e
}

// readCluster reads the manager's own GKE cluster once at start (its release
// channel, zones, version and maintenance exclusions, kept for the pools),
// and logs what a first pool would meet; a failed read is logged, and the
// pools read it again.
func readCluster(provider *gke.Provider, c gke.Cluster) {
	if c == (gke.Cluster{}) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := ctrl.Log.WithName("setup")
	info, err := provider.Cluster(ctx, c, true)
	if err != nil {
		log.Error(err, "reading the GKE cluster", "cluster", c.Parent())
		return
	}
	log.Info("GKE cluster", "cluster", c.Parent(), "releaseChannel", info.Channel, "locations", info.Locations,
		"version", info.Version, "upgradeExclusion", info.Exclusion)
}
