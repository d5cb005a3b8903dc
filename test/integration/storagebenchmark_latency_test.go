package integration

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
)

// latencyBenchmarks is how many StorageBenchmarks one iteration creates.
const latencyBenchmarks = 100

// latencyFio is a small emptyDir fio benchmark; its Jobs are never run.
const latencyFio = `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 1
volumes: {emptyDir: {}}
fio:
  size: 8M
  runtime: 1s
  jobs:
  - {name: randread-4k-qd4, rw: randread, blockSize: 4k, ioDepth: 4, ioEngine: libaio}
`

// BenchmarkStorageBenchmarkCreationToJob measures how long the controller
// takes from a StorageBenchmark's creation to its first Job, over 100
// benchmarks created one after the other. Nothing runs the Jobs: there is no
// fake kubelet, so each stays as created.
func BenchmarkStorageBenchmarkCreationToJob(b *testing.B) {
	ctx := context.Background()
	ns := startJobsOnlyController(b)
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	var spec benchv1.StorageBenchmarkSpec
	if err := yaml.UnmarshalStrict([]byte(latencyFio), &spec); err != nil {
		b.Fatal(err)
	}

	// A first benchmark, not counted, waits out the manager's start: its caches
	// and workers are up once it has a Job.
	creationToJob(ctx, b, wc, ns, "lat-warmup", spec)

	var lat []time.Duration
	b.ResetTimer()
	for n := range b.N {
		for i := range latencyBenchmarks {
			name := fmt.Sprintf("lat-%d-%03d", n, i)
			lat = append(lat, creationToJob(ctx, b, wc, ns, name, spec))
		}
	}
	b.StopTimer()

	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	p50, p99, worst := ms(percentile(lat, 0.50)), ms(percentile(lat, 0.99)), ms(lat[len(lat)-1])
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	b.ReportMetric(worst, "max-ms")
	b.Logf("creation->Job over %d: p50 %.1f ms, p99 %.1f ms, max %.1f ms", len(lat), p50, p99, worst)
}

// creationToJob creates one benchmark and returns the time from just before
// the create call until a watch, opened beforehand, delivers its first Job.
func creationToJob(ctx context.Context, b *testing.B, wc client.WithWatch, ns, name string, spec benchv1.StorageBenchmarkSpec) time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	w, err := wc.Watch(ctx, &batchv1.JobList{}, client.InNamespace(ns),
		client.MatchingLabels{benchv1.BenchmarkLabel: name})
	if err != nil {
		b.Fatalf("watching the Jobs of %s: %v", name, err)
	}
	defer w.Stop()

	sb := &benchv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: *spec.DeepCopy()}
	start := time.Now()
	if err := k8sClient.Create(ctx, sb); err != nil {
		b.Fatalf("creating %s: %v", name, err)
	}
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				b.Fatalf("the watch on the Jobs of %s closed before one appeared", name)
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				if _, isJob := ev.Object.(*batchv1.Job); isJob {
					return time.Since(start)
				}
			case watch.Error:
				b.Fatalf("watching the Jobs of %s: %v", name, ev.Object)
			}
		case <-ctx.Done():
			b.Fatalf("no Job for %s within 30s", name)
		}
	}
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// startJobsOnlyController is newStorageEnv without the fake kubelet: the
// StorageBenchmark controller in a manager of its own, scoped to a new
// namespace, whose Jobs nothing runs. It returns the namespace.
func startJobsOnlyController(tb testing.TB) string {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ns := "sb-latency-" + rand.String(5)
	if err := k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		cancel()
		tb.Fatal(err)
	}
	store, err := artifacts.Open(ctx, "file://"+tb.TempDir())
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	r := &storagebenchmark.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorderFor("storagebenchmark-controller"),
		Logs:     noLogs{}, Store: store, Image: "registry.example/fio:test",
	}
	if err := r.SetupWithManager(mgr); err != nil {
		cancel()
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			tb.Errorf("manager: %v", err)
		}
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
		_ = store.Close()
	})
	return ns
}

// noLogs is the LogReader of a controller whose pods never run.
type noLogs struct{}

func (noLogs) ReadLog(_ context.Context, namespace, pod, container string) ([]byte, error) {
	return nil, fmt.Errorf("no log for %s/%s container %s: nothing runs pods here", namespace, pod, container)
}
