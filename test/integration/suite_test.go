// Package integration tests the API and the controllers against a real
// kube-apiserver and etcd (envtest), built by hack/envtest-assets.sh.
package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

var (
	cfg       *rest.Config
	k8sClient client.Client
	scheme    = runtime.NewScheme()
	testEnv   *envtest.Environment
	// noArgo says why Argo's Workflow CRD is not installed (the tests of a
	// campaign's clean-up skip), or is empty.
	noArgo string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if err := util.SetEnvtestAssets(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := benchv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := mpiv2.AddToScheme(scheme); err != nil {
		panic(err)
	}
	mpiJobCRD, err := util.MPIJobCRD()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	crds := []string{util.CRDDir(), mpiJobCRD}
	// Argo's Workflow CRD as Argo installs it (the minimal one), of the
	// pinned argo-workflows module (hack/cluster-tools.sh argo fetches it).
	if mod, err := util.ArgoModule(); err != nil {
		noArgo = err.Error()
	} else {
		crds = append(crds, filepath.Join(mod, "manifests", "base", "crds", "minimal", "argoproj.io_workflows.yaml"))
	}
	testEnv = &envtest.Environment{
		// benchwright's CRDs, the real MPIJob CRD of the pinned mpi-operator
		// and Argo's Workflow CRD.
		CRDDirectoryPaths:     crds,
		ErrorIfCRDPathMissing: true,
	}
	cfg, err = testEnv.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting envtest: %v\n", err)
		return 1
	}
	defer func() {
		if err := testEnv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping envtest: %v\n", err)
		}
	}()
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintf(os.Stderr, "creating client: %v\n", err)
		return 1
	}
	defer removeCLI()
	return m.Run()
}

// testContext returns a context cancelled when the test ends.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}
