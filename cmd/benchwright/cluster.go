package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/report/source"
)

// clusterFlags select benchmarks in a cluster, with kubectl's --kubeconfig,
// --context and -n.
type clusterFlags struct {
	config   *genericclioptions.ConfigFlags
	selector string
	// manager is the manager's Service, NAMESPACE/NAME.
	manager string
	// artifactServer is where the manager's store is read: the plain port
	// through `kubectl port-forward`, http://localhost:8082. Empty: the
	// command opens that port-forward itself (fwd).
	artifactServer string
	fwd            *managerForward
	// reader, when set, reads the manager's store with a bearer token
	// (report --publish: the campaign's token, over TLS).
	reader *artifactReader
}

// artifactReader reads the manager's artifact server.
type artifactReader struct {
	server, token string
	client        *http.Client
}

// defaultManager is the Service the chart installs for the manager.
const defaultManager = "benchwright-system/benchwright-manager"

// clusterBenchmark is a benchmark's name, labels and where its artifacts are.
type clusterBenchmark struct {
	kind, namespace, name, uri string
	labels                     map[string]string
	succeeded                  bool
}

// resolveInputs turns arguments and flags into sources: sample files,
// directories and store URLs as they are; other arguments are benchmark
// names in the cluster, read from their status.artifactURI, like every
// benchmark --selector matches. A run in the manager's own file:// store is
// read from the manager's artifact server (throughManager).
func (f clusterFlags) resolveInputs(ctx context.Context, args []string) (source.Source, error) {
	var names []string
	for _, a := range args {
		if _, err := os.Stat(a); err != nil && !artifacts.IsURL(a) {
			names = append(names, a)
		}
	}
	if len(names) == 0 && f.selector == "" {
		return source.Sources(args), nil
	}
	found, err := f.lookup(ctx, names)
	if err != nil {
		return nil, err
	}
	sourceOf := func(b clusterBenchmark) (source.Source, error) {
		if b.uri == "" {
			return nil, fmt.Errorf("%s %s/%s has no results yet (status.artifactURI is empty)", b.kind, b.namespace, b.name)
		}
		if path, ok := strings.CutPrefix(b.uri, "file://"); ok {
			if _, err := os.Stat(path); err != nil {
				return f.throughManager(b)
			}
		}
		return source.Sources([]string{b.uri}), nil
	}
	// Named benchmarks stand where they were named; selected ones follow.
	byName := map[string]source.Source{}
	var selected []source.Source
	for i, b := range found {
		src, err := sourceOf(b)
		if err != nil {
			return nil, err
		}
		if i < len(names) {
			byName[names[i]] = src
		} else {
			selected = append(selected, src)
		}
	}
	var sources []source.Source
	for _, a := range args {
		src, ok := byName[a]
		if !ok {
			src = source.Sources([]string{a})
		}
		sources = append(sources, src)
	}
	return source.Join(append(sources, selected...)...), nil
}

// maxFetchedBytes bounds a samples.ndjson read from the manager: 100,000
// samples of a few hundred bytes each.
const maxFetchedBytes = 256 << 20

// throughManager reads a run of the manager's own store with a GET of
// /files/<ns>/<Kind>/<name>/<uid>/samples.ndjson from the manager's artifact
// server: over TLS with the campaign's token (report --publish), or through
// `kubectl port-forward` to its plain port (--artifact-server). The API
// server's service proxy no longer reaches it: it forwards no identity, so
// the server could not tell its readers from any pod's. The run's series
// (monitor/) come the same way, for the report to draw (managerRun).
func (f clusterFlags) throughManager(b clusterBenchmark) (source.Source, error) {
	elems := strings.Split(strings.TrimSuffix(b.uri, "/"), "/")
	if len(elems) < 4 {
		return nil, fmt.Errorf("%s %s/%s: %s is not a run's location", b.kind, b.namespace, b.name, b.uri)
	}
	runPath := "files/" + strings.Join(elems[len(elems)-4:], "/") + "/"
	rd := f.reader
	if rd == nil {
		if f.artifactServer != "" && !strings.HasPrefix(f.artifactServer, "http://") {
			return nil, fmt.Errorf("--artifact-server %s: want the port-forwarded plain port, http://localhost:8082", f.artifactServer)
		}
		rd = &artifactReader{server: strings.TrimSuffix(f.artifactServer, "/"), client: &http.Client{Timeout: 5 * time.Minute}}
	}
	m := managerRun{reader: rd, runPath: runPath, forward: func(ctx context.Context) (string, error) {
		// No --artifact-server: the command forwards the manager's port
		// itself, on the first read.
		s, err := f.forwarded(ctx)
		if err != nil {
			return "", fmt.Errorf("%s %s/%s is in the manager's own store (%s), read through a port-forward to the manager: %w", b.kind, b.namespace, b.name, b.uri, err)
		}
		return s, nil
	}}
	m.Fetched = source.Fetched{Name: strings.TrimSuffix(b.uri, "/") + "/" + source.SamplesFile, Fetch: func(ctx context.Context) ([]byte, error) {
		s, err := m.base(ctx)
		if err != nil {
			return nil, err
		}
		return rd.get(ctx, s+"/"+runPath+source.SamplesFile)
	}}
	return m, nil
}

// get reads target whole, at most maxFetchedBytes of it.
func (rd *artifactReader) get(ctx context.Context, target string) ([]byte, error) {
	body, err := rd.open(ctx, target)
	if err != nil {
		return nil, err
	}
	defer func() { _ = body.Close() }()
	data, err := io.ReadAll(io.LimitReader(body, maxFetchedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", target, err)
	}
	if len(data) > maxFetchedBytes {
		return nil, fmt.Errorf("reading %s: more than %d MiB", target, maxFetchedBytes>>20)
	}
	return data, nil
}

// open starts reading target, with the reader's token if it has one: the
// body of a 200, which the caller reads bounded and closes.
func (rd *artifactReader) open(ctx context.Context, target string) (io.ReadCloser, error) {
	resp, err := doRetrying(ctx, rd.client, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err == nil && rd.token != "" {
			req.Header.Set("Authorization", "Bearer "+rd.token)
		}
		return req, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading it from the manager's artifact server: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		defer func() { _ = resp.Body.Close() }()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, &answerError{target: target, status: resp.Status, code: resp.StatusCode, msg: strings.TrimSpace(string(msg))}
	}
	return resp.Body, nil
}

// answerError is an answer of the artifact server other than 200.
type answerError struct {
	target, status, msg string
	code                int
}

func (e *answerError) Error() string {
	return fmt.Sprintf("reading %s: the manager's artifact server answered %s: %s", e.target, e.status, e.msg)
}

// busyRetries is how often a request the artifact server answered 429 (all
// its slots taken, or too many new tokens) is sent again, after its
// Retry-After (at most maxRetryAfter).
const (
	busyRetries   = 6
	maxRetryAfter = 10 * time.Second
)

// doRetrying sends the request newReq makes, again after a 429.
func doRetrying(ctx context.Context, client *http.Client, newReq func() (*http.Request, error)) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := newReq()
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || attempt == busyRetries {
			return resp, err
		}
		wait := time.Second
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
			wait = min(time.Duration(secs)*time.Second, maxRetryAfter)
		}
		_ = resp.Body.Close()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// managerService is the manager's Service, namespace and name.
func (f clusterFlags) managerService() (string, string, error) {
	m := f.manager
	if m == "" {
		m = defaultManager
	}
	ns, name, ok := strings.Cut(m, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--manager %q: want NAMESPACE/SERVICE, e.g. %s", m, defaultManager)
	}
	return ns, name, nil
}

// lookup finds the named benchmarks (of any kind) and the succeeded ones the
// selector matches.
func (f clusterFlags) lookup(ctx context.Context, names []string) ([]clusterBenchmark, error) {
	c, ns, err := f.client()
	if err != nil {
		return nil, err
	}
	return f.find(ctx, c, c.Scheme(), ns, names)
}

// benchmarkKinds are the lists of every benchmark kind, which lookup reads.
func benchmarkKinds() []client.ObjectList {
	return []client.ObjectList{&benchv1.StorageBenchmarkList{}, &benchv1.MPIBenchmarkList{}, &benchv1.NetworkBenchmarkList{}}
}

// benchmark is what lookup reads of a benchmark of any kind.
type benchmark interface {
	client.Object
	BenchmarkStatus() *benchv1.BenchmarkStatusCommon
}

// eachBenchmark calls fn with every benchmark of every kind in a namespace
// that opts select, and its kind.
func eachBenchmark(ctx context.Context, c client.Reader, scheme *runtime.Scheme, ns string, fn func(kind string, b benchmark), opts ...client.ListOption) error {
	for _, list := range benchmarkKinds() {
		gvk, err := apiutil.GVKForObject(list, scheme)
		if err != nil {
			return err
		}
		kind := strings.TrimSuffix(gvk.Kind, "List")
		if err := c.List(ctx, list, append([]client.ListOption{client.InNamespace(ns)}, opts...)...); err != nil {
			return fmt.Errorf("listing %ss: %w", kind, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for _, o := range items {
			b, ok := o.(benchmark)
			if !ok {
				return fmt.Errorf("a %s is not a benchmark", kind)
			}
			fn(kind, b)
		}
	}
	return nil
}

// listBenchmarks lists the benchmarks of every kind in a namespace.
func listBenchmarks(ctx context.Context, c client.Reader, scheme *runtime.Scheme, ns string) ([]clusterBenchmark, error) {
	var all []clusterBenchmark
	err := eachBenchmark(ctx, c, scheme, ns, func(kind string, b benchmark) {
		st := b.BenchmarkStatus()
		all = append(all, clusterBenchmark{kind, b.GetNamespace(), b.GetName(), st.ArtifactURI, b.GetLabels(), st.State == benchv1.StateSucceeded})
	})
	return all, err
}

// errNoneSucceeded is find's error when the selector matches no benchmark
// that succeeded.
var errNoneSucceeded = errors.New("no benchmark that succeeded matches")

// find is lookup with a client: the named benchmarks, then the succeeded
// ones the selector matches.
func (f clusterFlags) find(ctx context.Context, c client.Reader, scheme *runtime.Scheme, ns string, names []string) ([]clusterBenchmark, error) {
	var sel labels.Selector
	if f.selector != "" {
		var err error
		if sel, err = labels.Parse(f.selector); err != nil {
			return nil, fmt.Errorf("--selector: %w", err)
		}
	}
	all, err := listBenchmarks(ctx, c, scheme, ns)
	if err != nil {
		return nil, err
	}
	var out []clusterBenchmark
	for _, n := range names {
		i := slices.IndexFunc(all, func(b clusterBenchmark) bool { return b.name == n })
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
			return nil, fmt.Errorf("%w in namespace %s: %s", errNoneSucceeded, ns, f.selector)
		}
	}
	return out, nil
}

// register adds the flags that pick benchmarks in a cluster: kubectl's
// --kubeconfig, --context and -n (only these: report has a --server of its
// own), -l and --manager.
func (f *clusterFlags) register(cmd *cobra.Command) {
	f.fwd = &managerForward{}
	f.config = &genericclioptions.ConfigFlags{KubeConfig: new(string), Context: new(string), Namespace: new(string)}
	f.config.AddFlags(cmd.Flags())
	// In the words of the other flags.
	for name, usage := range map[string]string{
		"kubeconfig": "the kubeconfig file of the cluster (default: $KUBECONFIG, else ~/.kube/config; in a pod, its ServiceAccount)",
		"context":    "the kubeconfig context to use (default: the current context)",
		"namespace":  "namespace of the benchmarks named as arguments or selected (default: the context's namespace)",
	} {
		cmd.Flags().Lookup(name).Usage = usage
	}
	_ = cmd.MarkFlagFilename("kubeconfig")
	cmd.Flags().StringVarP(&f.selector, "selector", "l", "", "every succeeded benchmark with these labels, e.g. benchwright.io/campaign=s0-storage")
	cmd.Flags().StringVar(&f.manager, "manager", defaultManager, "the manager's Service (NAMESPACE/NAME)")
	cmd.Flags().StringVar(&f.artifactServer, "artifact-server", "", "the manager's artifact server, port-forwarded (kubectl -n NAMESPACE port-forward svc/SERVICE 8082): http://localhost:8082, where results in its own file:// store are read; empty: the command opens that port-forward itself (create pods/portforward in the manager's namespace)")
}

// restConfig is the cluster's, as kubectl finds it: --kubeconfig, else
// $KUBECONFIG, else ~/.kube/config, else the pod's ServiceAccount; with
// --context.
func (f clusterFlags) restConfig() (*rest.Config, error) {
	loader := f.config.ToRawKubeConfigLoader()
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster to read benchmarks from: %w", err)
	}
	if len(raw.Clusters) == 0 {
		// Not localhost:8080, as clientcmd would have it.
		if _, err := rest.InClusterConfig(); err != nil {
			return nil, errors.New("no cluster to read benchmarks from: no kubeconfig (give --kubeconfig, set KUBECONFIG or write ~/.kube/config), and not in a pod")
		}
	}
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster to read benchmarks from: %w", err)
	}
	return cfg, nil
}

// client connects to the cluster, and says in which namespace to look.
func (f clusterFlags) client() (client.Client, string, error) {
	cfg, err := f.restConfig()
	if err != nil {
		return nil, "", err
	}
	ns, err := f.namespace()
	if err != nil {
		return nil, "", err
	}
	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), benchv1.AddToScheme(scheme)); err != nil {
		return nil, "", err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", err
	}
	return c, ns, nil
}

// namespace is -n, else the kubeconfig context's namespace, else the pod's
// (in a pod without a kubeconfig), else "default".
func (f clusterFlags) namespace() (string, error) {
	ns, _, err := f.config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("finding the namespace: %w", err)
	}
	return ns, nil
}
