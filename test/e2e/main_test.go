//go:build e2e

package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/fixtures"
	"github.com/benchwright/benchwright/test/util"
)

var (
	scheme = runtime.NewScheme()

	// env is what `hack/dev-cluster.sh env` printed: KUBECONFIG, KUBECTL,
	// MANAGER_PID, MANAGER_METRICS, MANAGER_LOG, ...
	env map[string]string
	// k8s acts as the cluster's admin (not as the manager).
	k8s       client.Client
	clientset kubernetes.Interface
	restCfg   *rest.Config
	logs      *logServer
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(benchv1.AddToScheme(scheme))
	utilruntime.Must(mpiv2.AddToScheme(scheme))
}

func TestMain(m *testing.M) {
	flag.Parse()
	// controller-runtime's cache (the scale test's watch) logs through it.
	log.SetLogger(logr.Discard())
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if dir, ok := fixtures.Dir(); !ok {
		fmt.Fprintf(os.Stderr, "e2e: skipped: the real tool outputs are not at %s and %s is not set: the fake containers would have nothing to print\n", dir, fixtures.EnvVar)
		return 0
	}
	script := filepath.Join(util.RepoRoot(), "hack", "dev-cluster.sh")
	_, existed := util.ScriptEnv(script)
	switch {
	case os.Getenv("E2E_REUSE") != "":
		if !existed {
			fmt.Fprintf(os.Stderr, "e2e: E2E_REUSE is set but no dev cluster is up (%s up)\n", script)
			return 1
		}
	default:
		// Down runs when this run brought the cluster up, also after an up
		// that failed halfway (its processes would outlive the test).
		if !existed && os.Getenv("E2E_KEEP") == "" {
			defer func() {
				if err := util.RunScript(script, "down"); err != nil {
					fmt.Fprintf(os.Stderr, "e2e: %s down: %v\n", script, err)
				}
			}()
		}
		// Idempotent: on a running dev cluster it only rebuilds and restarts
		// the manager if its code changed.
		began := time.Now()
		if err := util.UpCluster(script, existed); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: %s up: %v\n", script, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "e2e: %s up took %s\n", script, time.Since(began).Round(100*time.Millisecond))
	}
	var ok bool
	if env, ok = util.ScriptEnv(script); !ok {
		fmt.Fprintf(os.Stderr, "e2e: %s env failed after up\n", script)
		return 1
	}
	if err := connect(env["KUBECONFIG"]); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	dir, err := os.MkdirTemp(env["DEV_CLUSTER_DIR"], "e2e-logs-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs = newLogServer(dir)
	if err := logs.start(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: starting the log server: %v\n", err)
		return 1
	}
	began := time.Now()
	code := m.Run()
	fmt.Fprintf(os.Stderr, "e2e: tests took %s\n", time.Since(began).Round(100*time.Millisecond))
	return code
}

func connect(kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	restCfg = cfg
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	clientset, err = kubernetes.NewForConfig(cfg)
	return err
}
