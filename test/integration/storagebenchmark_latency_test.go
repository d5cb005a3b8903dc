package integration

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/test/wrappers"
)

// latencyBenchmarks is how many benchmarks one iteration of a creation
// latency benchmark creates.
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
	var spec benchv1.StorageBenchmarkSpec
	if err := yaml.UnmarshalStrict([]byte(latencyFio), &spec); err != nil {
		b.Fatal(err)
	}
	ns := latencyNamespace(b, "sb-lat-")
	startController(b, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		return (&storagebenchmark.Reconciler{
			Env: benchrun.NewEnv(mgr, "storagebenchmark-controller", noLogs{}, store), Image: "registry.example/fio:test",
		}).SetupWithManager(mgr)
	}, noStandIn)
	benchCreationToChild(b, creationLatency{
		ns: ns, child: "Job",
		children: func() client.ObjectList { return &batchv1.JobList{} },
		benchmark: func(name string) client.Object {
			return wrappers.MakeStorageBenchmark(name, ns).Spec(spec).Obj()
		},
	})
}

// creationLatency is what a creation latency benchmark creates and what it
// waits for.
type creationLatency struct {
	// ns is the namespace of the benchmarks, where a controller runs.
	ns string
	// child names the kind of the children, for messages.
	child string
	// children is an empty list of the children's kind, to watch.
	children func() client.ObjectList
	// benchmark is a new benchmark named name in ns.
	benchmark func(name string) client.Object
}

// benchCreationToChild creates, one after the other, one benchmark not counted
// then latencyBenchmarks per iteration, and reports the percentiles of the
// time from each creation to its first child.
func benchCreationToChild(b *testing.B, c creationLatency) {
	b.Helper()
	ctx := context.Background()
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}

	// A first benchmark, not counted, waits out the manager's start: its caches
	// and workers are up once it has a child.
	creationToChild(ctx, b, wc, c, "lat-warmup")

	var lat []time.Duration
	b.ResetTimer()
	for n := range b.N {
		for i := range latencyBenchmarks {
			name := fmt.Sprintf("lat-%d-%03d", n, i)
			lat = append(lat, creationToChild(ctx, b, wc, c, name))
		}
	}
	b.StopTimer()

	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	p50, p99, worst := ms(percentile(lat, 0.50)), ms(percentile(lat, 0.99)), ms(lat[len(lat)-1])
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	b.ReportMetric(worst, "max-ms")
	b.Logf("creation->%s over %d: p50 %.1f ms, p99 %.1f ms, max %.1f ms", c.child, len(lat), p50, p99, worst)
}

// creationToChild creates one benchmark and returns the time from just before
// the create call until a watch, opened beforehand, delivers its first child.
func creationToChild(ctx context.Context, tb testing.TB, wc client.WithWatch, c creationLatency, name string) time.Duration {
	tb.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	w, err := wc.Watch(ctx, c.children(), client.InNamespace(c.ns),
		client.MatchingLabels{benchv1.BenchmarkLabel: name})
	if err != nil {
		tb.Fatalf("watching the %ss of %s: %v", c.child, name, err)
	}
	defer w.Stop()

	obj := c.benchmark(name)
	start := time.Now()
	if err := k8sClient.Create(ctx, obj); err != nil {
		tb.Fatalf("creating %s: %v", name, err)
	}
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				tb.Fatalf("the watch on the %ss of %s closed before one appeared", c.child, name)
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				// A child, not a *metav1.Status.
				if _, isChild := ev.Object.(client.Object); isChild {
					return time.Since(start)
				}
			case watch.Error:
				tb.Fatalf("watching the %ss of %s: %v", c.child, name, ev.Object)
			}
		case <-ctx.Done():
			tb.Fatalf("no %s for %s within 30s", c.child, name)
		}
	}
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// latencyNamespace is testNamespace with a random part after the prefix:
// the testing package calls a benchmark function more than once (b.N 1, then
// the b.N it settles on), and each call needs a namespace of its own, as the
// benchmarks' names repeat and a new manager would otherwise find the last
// call's benchmarks.
func latencyNamespace(tb testing.TB, prefix string) string {
	tb.Helper()
	return testNamespace(tb, prefix+rand.String(5)+"-")
}

// noStandIn is the stand-in of a controller whose children nothing runs.
func noStandIn(context.Context) {}

// noLogs is the LogReader of a controller whose pods never run.
type noLogs struct{}

func (noLogs) ReadLog(_ context.Context, namespace, pod, container string) ([]byte, error) {
	return nil, fmt.Errorf("no log for %s/%s container %s: nothing runs pods here", namespace, pod, container)
}
