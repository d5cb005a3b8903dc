// Command manager runs the benchwright controllers.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/tuningprofile"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/internal/managercache"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(benchv1.AddToScheme(scheme))
	utilruntime.Must(mpiv2.AddToScheme(scheme))
}

// Defaults of the flags that name images and the store.
const (
	defaultArtifactStore = "file:///var/lib/benchwright/artifacts"
	// defaultArtifactAddr is loopback: the plain port serves every
	// namespace's files to anyone who reaches it (kubectl port-forward does).
	defaultArtifactAddr = "127.0.0.1:8082"
	defaultImageRepo    = "ghcr.io/benchwright/"
	defaultImageTag     = ":v0.1.0"
	defaultFioImage     = defaultImageRepo + "fio" + defaultImageTag
)

func main() { os.Exit(run()) }

// run starts the manager and returns the exit code once it stops.
func run() int {
	var (
		metricsAddr    string
		metricsSecure  bool
		probeAddr      string
		pprofAddr      string
		artifactAddr   string
		artifactTLS    artifactTLSFlags
		leaderElection bool
		leaderNS       string
		cfg            controllerConfig
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "address the Prometheus metrics endpoint binds to (0 disables it)")
	flag.BoolVar(&metricsSecure, "metrics-secure", true, "serve metrics over HTTPS to clients whose token may get /metrics (TokenReview, SubjectAccessReview); false: plain HTTP to anyone")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address the /healthz and /readyz probes bind to")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "0", "address net/http/pprof binds to, for memory and CPU profiles (0, the default, disables it)")
	flag.StringVar(&artifactAddr, "artifact-server-bind-address", defaultArtifactAddr, "address the read-only HTTP view of the artifact store binds to, unauthenticated: keep it on loopback (0 disables it)")
	artifactTLS.register(flag.CommandLine)
	flag.BoolVar(&leaderElection, "leader-elect", false, "elect a leader, so that only one of several replicas reconciles")
	flag.StringVar(&leaderNS, "leader-election-namespace", "", "namespace of the leader-election Lease (default: the pod's namespace)")
	flag.StringVar(&cfg.artifactStore, "artifact-store", defaultArtifactStore, "where raw output, samples and summaries go: file:///dir, gs://bucket/prefix, s3://bucket/prefix or azblob://container/prefix")
	flag.StringVar(&cfg.resultsDB, "results-db", "", "the results database every succeeded run is indexed in, for its history: sqlite:///var/lib/benchwright/results.db (a file on the manager's volume) or postgres://user@host:5432/db (password from PGPASSWORD); empty: none")
	flag.StringVar(&cfg.fioImage, "fio-image", defaultFioImage, "image that runs fio and dd when a StorageBenchmark names none")
	flag.StringVar(&cfg.nodeFactsImage, "nodefacts-image", defaultImageRepo+"manager"+defaultImageTag, "the manager's own image: benchmark pods run its /benchwright nodefacts, unprivileged, to record their node's facts (empty: not recorded)")
	flag.StringVar(&cfg.tunerImage, "tuner-image", defaultImageRepo+"tuner"+defaultImageTag, "image of the node tuner that TuningProfiles run as a privileged DaemonSet")
	cfg.mpiImages = map[benchv1.MPIImplementation]*string{
		benchv1.OpenMPI:  flag.String("mpi-openmpi-image", defaultImageRepo+"mpi-openmpi"+defaultImageTag, "image of MPIBenchmarks with OpenMPI that name none (OSU, IMB, IOR, sshd, benchwright)"),
		benchv1.IntelMPI: flag.String("mpi-intel-image", defaultImageRepo+"mpi-intel"+defaultImageTag, "image of MPIBenchmarks with Intel MPI that name none (OSU, IMB, sshd, benchwright)"),
		benchv1.MPICH:    flag.String("mpi-mpich-image", defaultImageRepo+"mpi-mpich"+defaultImageTag, "image of MPIBenchmarks with MPICH that name none (OSU, IMB, IOR, sshd, benchwright)"),
	}
	flag.Func("host-path-prefixes", "comma-separated directories of the nodes under which StorageBenchmarks may use hostPath volumes (unset: none)", func(v string) error {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				if !strings.HasPrefix(p, "/") || p == "/" {
					return fmt.Errorf("%q is not an absolute directory below /", p)
				}
				cfg.hostPathPrefixes = append(cfg.hostPathPrefixes, p)
			}
		}
		return nil
	})
	flag.IntVar(&cfg.workers, "max-concurrent-reconciles", 4, "benchmarks of each kind reconciled at once (those sharing a pool still start one at a time, in creation order)")
	flag.BoolVar(&cfg.allowHostNetwork, "allow-host-network", false, "let MPIBenchmarks (layout.hostNetwork) and NetworkBenchmarks (hostNetwork) run pods in the nodes' network namespace; without it they fail InvalidSpec")
	flag.StringVar(&cfg.gkeCluster.Project, "gke-project", "", "project of the GKE cluster where gke BenchmarkPools create node pools (credentials: Workload Identity / Application Default Credentials)")
	flag.StringVar(&cfg.gkeCluster.Location, "gke-location", "", "location (region or zone) of that GKE cluster")
	flag.StringVar(&cfg.gkeCluster.Name, "gke-cluster", "", "name of that GKE cluster")
	flag.DurationVar(&cfg.gkeExcludeUpgradesFor, "gke-exclude-upgrades-for", 0, "on a GKE cluster on a release channel with no maintenance exclusion holding minor and node upgrades back, add one (benchwright-campaigns) for this long before making a pool (needs container.clusters.update); 0: never, the pool's UpgradesExcluded condition says what to do")
	flag.StringVar(&cfg.gkeEndpoint.Address, "gke-endpoint", "", "HOST:PORT of the GKE API, reached over TLS (Private Service Connect, a proxy, the real cluster's fake); empty: Google's, container.googleapis.com:443")
	flag.StringVar(&cfg.gkeEndpoint.CAFile, "gke-ca-file", "", "PEM bundle of the CAs trusted for the GKE API's TLS certificate, in place of the system's roots; empty: the system's roots")
	flag.BoolVar(&cfg.gkeEndpoint.WithoutAuthentication, "gke-without-authentication", false, "call the GKE API without credentials (no Application Default Credentials needed): for a --gke-endpoint that needs none or a proxy that adds them")
	flag.StringVar(&cfg.gkeDefaultZone, "gke-default-zone", "", "zone of a gke BenchmarkPool that names no spec.gke.nodeLocations on a cluster with several zones (a regional cluster); unset: such a pool is refused")
	flag.Func("gke-allowed-clusters", "comma-separated GKE clusters, projects/P/locations/L/clusters/C, other than the manager's own that BenchmarkPools may name in spec.gke (unset: none)", func(v string) error {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				c, err := gke.ParseCluster(name)
				if err != nil {
					return err
				}
				cfg.gkeAllowed = append(cfg.gkeAllowed, c)
			}
		}
		return nil
	})
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	if cfg.workers < 1 {
		fmt.Fprintf(os.Stderr, "--max-concurrent-reconciles=%d: want at least 1\n", cfg.workers)
		return 2
	}
	gkeOptions, err := gkeClientOptions(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg.gkeOptions = gkeOptions
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	ctx := ctrl.SetupSignalHandler()
	store, err := artifacts.Open(ctx, cfg.artifactStore)
	if err != nil {
		log.Error(err, "opening the artifact store", "url", cfg.artifactStore)
		return 1
	}
	defer func() { _ = store.Close() }()
	cfg.store = store
	if cfg.resultsDB != "" {
		db, err := resultsdb.Open(ctx, cfg.resultsDB)
		if err != nil {
			log.Error(err, "opening the results database")
			return 1
		}
		defer func() { _ = db.Close() }()
		cfg.db = db
	}

	restCfg := ctrl.GetConfigOrDie()
	restCfg.WarningHandlerWithContext = newAPIWarnings()
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsOptions(metricsAddr, metricsSecure),
		HealthProbeBindAddress:  probeAddr,
		PprofBindAddress:        pprofAddr,
		LeaderElection:          leaderElection,
		LeaderElectionID:        "manager.benchwright.io",
		LeaderElectionNamespace: leaderNS,
		// The manager stops reconciling at once when it loses the lease.
		LeaderElectionReleaseOnCancel: true,
		Cache:                         managercache.Options(tuningprofile.ManagerNamespace()),
	})
	if err != nil {
		log.Error(err, "creating manager")
		return 1
	}
	if err := setupControllers(mgr, cfg); err != nil {
		log.Error(err, "setting up controllers")
		return 1
	}
	if cfg.db != nil {
		if err := mgr.Add(backfiller(cfg.db, store, ctrl.Log.WithName("results-db"))); err != nil {
			log.Error(err, "adding the results database's backfill")
			return 1
		}
	}
	var history artifactserver.HistoryReader // a nil *DB would be a non-nil reader
	if cfg.db != nil {
		history = cfg.db
	}
	if err := addArtifactServer(mgr, artifactAddr, artifactTLS, store, history); err != nil {
		log.Error(err, "adding the artifact server")
		return 1
	}
	if err := registerMetrics(mgr); err != nil {
		log.Error(err, "registering metrics")
		return 1
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "adding health check")
		return 1
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		log.Error(err, "adding ready check")
		return 1
	}
	log.Info("starting manager", "artifactStore", store.URI(""), "resultsDB", cfg.db.String())
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "running manager")
		return 1
	}
	return 0
}
