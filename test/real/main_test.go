//go:build real

package real

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

var (
	scheme = runtime.NewScheme()
	// env is what `hack/real-cluster.sh env` printed: KUBECONFIG, KUBECTL,
	// REAL_NODES, REAL_VOLUMES, IMAGE_FIO, ...
	env map[string]string
	// k8s acts as the cluster's admin (not as the manager).
	k8s       client.Client
	clientset kubernetes.Interface
	kc        util.Kubectl
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(benchv1.AddToScheme(scheme))
	utilruntime.Must(mpiv2.AddToScheme(scheme))
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getuid() != 0 {
		fmt.Fprintln(os.Stderr, "real: needs root (network namespaces, containerd, kubelet): run make test-real as root")
		return 1
	}
	script := realClusterScript()
	_, existed := util.ScriptEnv(script)
	if os.Getenv("REAL_REUSE") != "" {
		if !existed {
			fmt.Fprintf(os.Stderr, "real: REAL_REUSE is set but no real cluster is up (%s up)\n", script)
			return 1
		}
	} else {
		// Down runs when this run brought the cluster up, also after an up
		// that failed halfway (its processes would outlive the test).
		if !existed && os.Getenv("REAL_KEEP") == "" {
			defer func() {
				if err := util.RunScript(script, "down"); err != nil {
					fmt.Fprintf(os.Stderr, "real: %s down: %v\n", script, err)
				}
			}()
		}
		began := time.Now()
		if err := util.UpCluster(script, existed); err != nil {
			fmt.Fprintf(os.Stderr, "real: %s up: %v\n", script, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "real: %s up took %s\n", script, time.Since(began).Round(100*time.Millisecond))
	}
	var ok bool
	if env, ok = util.ScriptEnv(script); !ok {
		fmt.Fprintf(os.Stderr, "real: %s env failed after up\n", script)
		return 1
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", env["KUBECONFIG"])
	if err != nil {
		fmt.Fprintf(os.Stderr, "real: kubeconfig: %v\n", err)
		return 1
	}
	// The API server's warnings (the MPIJob CRD drops the pod templates'
	// creationTimestamp: null) would print controller-runtime's "logger was
	// never set" stack trace.
	ctrllog.SetLogger(logr.Discard())
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintf(os.Stderr, "real: %v\n", err)
		return 1
	}
	if clientset, err = kubernetes.NewForConfig(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "real: %v\n", err)
		return 1
	}
	kc = util.Kubectl{Bin: env["KUBECTL"], Kubeconfig: env["KUBECONFIG"]}
	if existed {
		if err := sweepLeftovers(); err != nil {
			fmt.Fprintf(os.Stderr, "real: %v\n", err)
			return 1
		}
	}
	began := time.Now()
	code := m.Run()
	fmt.Fprintf(os.Stderr, "real: tests took %s\n", time.Since(began).Round(100*time.Millisecond))
	return code
}

// nodes are the real nodes' names.
func nodes() []string { return strings.Split(env["REAL_NODES"], ",") }

// nodeNetns is the network namespace of real node i (0-based).
func nodeNetns(i int) string { return strings.Split(env["REAL_NODE_NETNS"], ",")[i] }

// ctx is a context for one API call or a short wait.
func ctx() context.Context { return context.Background() }
