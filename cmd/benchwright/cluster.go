package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/client/config"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/report"
)

// clusterFlags select benchmarks in the cluster of the current kubeconfig.
type clusterFlags struct {
	namespace string
	selector  string
}

// clusterBenchmark is a benchmark's name, labels and where its artifacts are.
type clusterBenchmark struct {
	kind, namespace, name, uri string
	labels                     map[string]string
	succeeded                  bool
}

// resolveInputs turns arguments and flags into sources: sample files,
// directories and store URLs as they are; other arguments are benchmark
// names in the cluster, read from their status.artifactURI, like every
// benchmark --selector matches.
func (f clusterFlags) resolveInputs(ctx context.Context, args []string) (report.Source, error) {
	var names []string
	for _, a := range args {
		if _, err := os.Stat(a); err != nil && !report.IsStoreURL(a) {
			names = append(names, a)
		}
	}
	if len(names) == 0 && f.selector == "" {
		return report.Sources(args), nil
	}
	found, err := f.lookup(ctx, names)
	if err != nil {
		return nil, err
	}
	// Named benchmarks stand where they were named; selected ones follow.
	uris := map[string]string{}
	var selected []string
	for i, b := range found {
		if b.uri == "" {
			return nil, fmt.Errorf("%s %s/%s has no results yet (status.artifactURI is empty)", b.kind, b.namespace, b.name)
		}
		if strings.HasPrefix(b.uri, "file://") {
			if _, err := os.Stat(strings.TrimPrefix(b.uri, "file://")); err != nil {
				return nil, fmt.Errorf("%s %s/%s keeps its results in the manager's own volume (%s): open them with "+
					"`kubectl -n benchwright-system port-forward svc/benchwright-manager 8082` and http://localhost:8082/, "+
					"or start the manager with an --artifact-store on gs:// or s3://", b.kind, b.namespace, b.name, b.uri)
			}
		}
		if i < len(names) {
			uris[names[i]] = b.uri
		} else {
			selected = append(selected, b.uri)
		}
	}
	inputs := make([]string, 0, len(args)+len(selected))
	for _, a := range args {
		if uri, ok := uris[a]; ok {
			a = uri
		}
		inputs = append(inputs, a)
	}
	return report.Sources(append(inputs, selected...)), nil
}

// lookup finds the named benchmarks (either kind) and the succeeded ones the
// selector matches.
func (f clusterFlags) lookup(ctx context.Context, names []string) ([]clusterBenchmark, error) {
	c, ns, err := f.client()
	if err != nil {
		return nil, err
	}
	var sel labels.Selector
	if f.selector != "" {
		if sel, err = labels.Parse(f.selector); err != nil {
			return nil, fmt.Errorf("--selector: %w", err)
		}
	}
	var storage benchv1.StorageBenchmarkList
	if err := c.List(ctx, &storage, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing StorageBenchmarks: %w", err)
	}
	var mpi benchv1.MPIBenchmarkList
	if err := c.List(ctx, &mpi, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing MPIBenchmarks: %w", err)
	}
	var all []clusterBenchmark
	for _, b := range storage.Items {
		all = append(all, clusterBenchmark{"StorageBenchmark", b.Namespace, b.Name, b.Status.ArtifactURI, b.Labels, b.Status.State == benchv1.StateSucceeded})
	}
	for _, b := range mpi.Items {
		all = append(all, clusterBenchmark{"MPIBenchmark", b.Namespace, b.Name, b.Status.ArtifactURI, b.Labels, b.Status.State == benchv1.StateSucceeded})
	}
	var out []clusterBenchmark
	for _, n := range names {
		i := indexOf(all, n)
		if i < 0 {
			return nil, fmt.Errorf("%s is neither a file nor a benchmark in namespace %s", n, ns)
		}
		out = append(out, all[i])
	}
	if sel != nil {
		matched := 0
		for _, b := range all {
			if b.succeeded && sel.Matches(labels.Set(b.labels)) {
				out = append(out, b)
				matched++
			}
		}
		if matched == 0 {
			return nil, fmt.Errorf("no benchmark in namespace %s matches %s", ns, f.selector)
		}
	}
	return out, nil
}

func indexOf(all []clusterBenchmark, name string) int {
	for i, b := range all {
		if b.name == name {
			return i
		}
	}
	return -1
}

// client connects with the current kubeconfig (or in-cluster config).
func (f clusterFlags) client() (client.Client, string, error) {
	cfg, err := ctrlconfig.GetConfig()
	if err != nil {
		return nil, "", fmt.Errorf("no cluster to read benchmarks from: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), benchv1.AddToScheme(scheme)); err != nil {
		return nil, "", err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", err
	}
	ns := f.namespace
	if ns == "" {
		ns = "default"
	}
	return c, ns, nil
}
