//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/tuning"
	"github.com/benchwright/benchwright/test/util"
)

// kwok's objects that serve container logs from files.
var (
	logsGVK        = schema.GroupVersionKind{Group: "kwok.x-k8s.io", Version: "v1alpha1", Kind: "Logs"}
	clusterLogsGVK = schema.GroupVersionKind{Group: "kwok.x-k8s.io", Version: "v1alpha1", Kind: "ClusterLogs"}
)

// Container names the manager reads (controllers/*/construct.go).
const (
	fioContainer      = "fio"
	ddPrepContainer   = "dd-prepare"
	dropCaches        = "drop-caches"
	launcherContainer = "launcher"
	tunerContainer    = "tuner"
	roleLabel         = "benchwright.io/role"
)

// logServer plays the containers of benchwright's pods: for each pod it sees
// (label benchwright.io/kind) it writes what the containers would print and
// creates a kwok Logs object that serves it, owned by the pod.
type logServer struct {
	dir string

	mu sync.Mutex
	// seen pods, by UID.
	seen map[types.UID]bool
	// skip namespaces are served otherwise (a ClusterLogs object).
	skip map[string]bool
	errs []error
	// served counts the Logs objects created.
	served int
}

func newLogServer(dir string) *logServer {
	return &logServer{dir: dir, seen: map[types.UID]bool{}, skip: map[string]bool{}}
}

// start watches benchwright's pods until ctx ends.
func (s *logServer) start(ctx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = benchv1.KindLabel }))
	inf := factory.Core().V1().Pods().Informer()
	handle := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.Spec.NodeName == "" || !pod.DeletionTimestamp.IsZero() {
			return
		}
		s.mu.Lock()
		if s.seen[pod.UID] || s.skip[pod.Namespace] {
			s.mu.Unlock()
			return
		}
		s.seen[pod.UID] = true
		s.mu.Unlock()
		go func() {
			if err := s.serveRetrying(ctx, pod); err != nil && ctx.Err() == nil {
				s.mu.Lock()
				s.errs = append(s.errs, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err))
				s.mu.Unlock()
			}
		}()
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    handle,
		UpdateFunc: func(_, obj any) { handle(obj) },
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	for _, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return errors.New("the pod informer did not sync")
		}
	}
	return nil
}

// skipNamespace leaves the pods of ns alone.
func (s *logServer) skipNamespace(ns string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skip[ns] = true
}

// errors are what went wrong serving logs so far.
func (s *logServer) errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.errs)
}

// serveRetrying serves the pod's logs, trying again for a while when the
// API server does not answer (the chaos test restarts it).
func (s *logServer) serveRetrying(ctx context.Context, pod *corev1.Pod) error {
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if err = s.serve(ctx, pod); err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}

// serve writes the logs of the pod's containers and the Logs object that
// serves them.
func (s *logServer) serve(ctx context.Context, pod *corev1.Pod) error {
	outputs, err := s.outputs(ctx, pod)
	if err != nil || len(outputs) == 0 {
		return err
	}
	var entries []any
	for container, out := range outputs {
		file := filepath.Join(s.dir, fmt.Sprintf("%s_%s_%s.log", pod.Namespace, pod.Name, container))
		if err := writeCRILog(file, out); err != nil {
			return err
		}
		entries = append(entries, map[string]any{"containers": []any{container}, "logsFile": file})
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(logsGVK)
	obj.SetNamespace(pod.Namespace)
	obj.SetName(pod.Name)
	obj.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}})
	if err := unstructured.SetNestedSlice(obj.Object, entries, "spec", "logs"); err != nil {
		return err
	}
	if err := k8s.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		if apierrors.IsNotFound(err) { // the namespace went away
			return nil
		}
		return fmt.Errorf("creating its Logs: %w", err)
	}
	s.mu.Lock()
	s.served++
	s.mu.Unlock()
	return nil
}

// outputs are what the pod's containers print, by container name.
func (s *logServer) outputs(ctx context.Context, pod *corev1.Pod) (map[string][]byte, error) {
	outputs, err := s.toolOutputs(ctx, pod)
	if err == nil && children.HasNodeFacts(pod) {
		if outputs == nil {
			outputs = map[string][]byte{}
		}
		outputs[children.NodeFactsContainer] = nodeFactsOutput()
	}
	return outputs, err
}

// nodeFactsOutput is what the node-facts step prints: this machine's facts,
// read for real, play every kwok node's.
func nodeFactsOutput() []byte {
	f := nodefacts.Host{}.Read(nil)
	f.Network = "pod"
	return []byte(nodefacts.Line(f) + "\n")
}

// toolOutputs are the outputs of the pod's tools.
func (s *logServer) toolOutputs(ctx context.Context, pod *corev1.Pod) (map[string][]byte, error) {
	switch pod.Labels[benchv1.KindLabel] {
	case "StorageBenchmark":
		b := &benchv1.StorageBenchmark{}
		if err := ownerChain(ctx, pod, b, &batchv1.Job{}); err != nil {
			return nil, err
		}
		return storageOutputs(b, pod)
	case "MPIBenchmark":
		if pod.Labels[roleLabel] != "launcher" {
			return nil, nil // workers run sshd: nobody reads it
		}
		b := &benchv1.MPIBenchmark{}
		if err := ownerChain(ctx, pod, b, &batchv1.Job{}, &mpiv2.MPIJob{}); err != nil {
			return nil, err
		}
		l, err := launchOf(pod)
		if err != nil {
			return nil, err
		}
		out, err := launcherOutput(l)
		return map[string][]byte{launcherContainer: out}, err
	case "TuningProfile":
		cfg, err := tunerConfigOf(ctx, pod)
		if err != nil {
			return nil, err
		}
		return map[string][]byte{tunerContainer: tunerOutput(cfg, pod.Spec.NodeName)}, nil
	}
	return nil, nil
}

// storageOutputs: fio's JSON report, or each dd test's summary.
func storageOutputs(b *benchv1.StorageBenchmark, pod *corev1.Pod) (map[string][]byte, error) {
	if b.Spec.Fio != nil {
		out, _, err := fioOutput(b.Spec.Fio)
		return map[string][]byte{fioContainer: out}, err
	}
	outputs := map[string][]byte{}
	for _, c := range append(slices.Clone(pod.Spec.InitContainers), pod.Spec.Containers...) {
		op := benchv1.DDOperation("write") // dd-prepare writes the file the reads read
		if i := slices.IndexFunc(b.Spec.DD.Tests, func(t benchv1.DDTest) bool { return t.Name == c.Name }); i >= 0 {
			op = b.Spec.DD.Tests[i].Operation
		} else if c.Name != ddPrepContainer {
			continue // drop-caches prints nothing
		}
		data, err := fixture(ddFixture(op))
		if err != nil {
			return nil, err
		}
		outputs[c.Name] = ddProcessesOutput(data, c.Args)
	}
	return outputs, nil
}

// ddProcessesOutput is what the group script of a multi-process dd step
// prints when every process prints data: each process's output after its
// marker line. One process is dd itself: data as it is.
func ddProcessesOutput(data []byte, args []string) []byte {
	if len(args) < 4 || args[0] != "-c" {
		return data
	}
	n, _ := strconv.Atoi(args[3]) // sh -c script $0 $1=processes ...
	var out []byte
	for i := range n {
		out = fmt.Appendf(out, "==> benchwright dd process %d <==\n", i)
		out = append(out, data...)
	}
	return out
}

// ownerChain follows controller references from obj through the kinds of
// via, in order, to the benchmark, which it reads into bench.
func ownerChain(ctx context.Context, obj client.Object, bench client.Object, via ...client.Object) error {
	cur := obj
	for _, next := range append(via, bench) {
		ref := metav1.GetControllerOf(cur)
		if ref == nil {
			return fmt.Errorf("%T %s has no controller", cur, cur.GetName())
		}
		if err := getWithRetry(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, next); err != nil {
			return fmt.Errorf("owner %s %s of %s: %w", ref.Kind, ref.Name, cur.GetName(), err)
		}
		cur = next
	}
	return nil
}

// launchOf reads the launcher's steps as the launcher does: the steps.json
// its downward API volume makes of its own annotation.
func launchOf(pod *corev1.Pod) (*mpi.Launch, error) {
	steps, ok := util.DownwardFile(pod, "steps.json")
	if !ok {
		return nil, fmt.Errorf("launcher %s has no steps.json in its downward API volume", pod.Name)
	}
	var l mpi.Launch
	if err := json.Unmarshal([]byte(steps), &l); err != nil {
		return nil, fmt.Errorf("launcher %s: steps.json: %w", pod.Name, err)
	}
	return &l, nil
}

// tunerConfigOf reads the tuner's settings.json from the ConfigMap its pod mounts.
func tunerConfigOf(ctx context.Context, pod *corev1.Pod) (tuning.Config, error) {
	var cfg tuning.Config
	for _, v := range pod.Spec.Volumes {
		if v.ConfigMap == nil {
			continue
		}
		var cm corev1.ConfigMap
		if err := getWithRetry(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: v.ConfigMap.Name}, &cm); err != nil {
			return cfg, err
		}
		err := json.Unmarshal([]byte(cm.Data["settings.json"]), &cfg)
		return cfg, err
	}
	return cfg, errors.New("the tuner pod mounts no ConfigMap")
}

// getWithRetry reads an object that may be moments from existing.
func getWithRetry(ctx context.Context, key client.ObjectKey, obj client.Object) error {
	var err error
	for range 50 {
		if err = k8s.Get(ctx, key, obj); !apierrors.IsNotFound(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return err
}

// serveNamespace serves the same outputs to every pod of ns with a kwok
// ClusterLogs object, by container name: how the scale test feeds hundreds of
// pods one log each.
func serveNamespace(ctx context.Context, dir, ns string, outputs map[string][]byte) (*unstructured.Unstructured, error) {
	var entries []any
	for container, out := range outputs {
		file := filepath.Join(dir, fmt.Sprintf("%s_all_%s.log", ns, container))
		if err := writeCRILog(file, out); err != nil {
			return nil, err
		}
		entries = append(entries, map[string]any{"containers": []any{container}, "logsFile": file})
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(clusterLogsGVK)
	obj.SetName(ns)
	if err := unstructured.SetNestedSlice(obj.Object, entries, "spec", "logs"); err != nil {
		return nil, err
	}
	if err := unstructured.SetNestedStringSlice(obj.Object, []string{ns}, "spec", "selector", "matchNamespaces"); err != nil {
		return nil, err
	}
	return obj, k8s.Create(ctx, obj)
}
