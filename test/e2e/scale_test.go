//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/test/util"
)

// TestScale is hack/bench-e2e.sh's measurement: E2E_SCALE_STORAGE (200)
// quickstart StorageBenchmarks and E2E_SCALE_MPI (100) quickstart
// MPIBenchmarks, one repetition each, created at once on the dev cluster's
// nodes. It reports the time until all Succeeded, creation-to-child (Job,
// MPIJob) latency p50/p99, the manager's peak RSS and its API requests per
// benchmark. One kwok ClusterLogs object serves every pod of the namespace.
func TestScale(t *testing.T) {
	if os.Getenv("E2E_SCALE") == "" {
		t.Skip("E2E_SCALE is not set (hack/bench-e2e.sh sets it)")
	}
	nStorage, nMPI := envInt(t, "E2E_SCALE_STORAGE", 200), envInt(t, "E2E_SCALE_MPI", 100)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := newNamespace(t)
	logs.skipNamespace(ns)

	sb := &benchv1.StorageBenchmark{}
	util.LoadExample(t, "quickstart/fio.yaml", sb)
	sb.Spec.Repetitions = 1
	sb.Spec.Expectations = nil
	mb := &benchv1.MPIBenchmark{}
	util.LoadExample(t, "quickstart/osu-latency.yaml", mb)
	mb.Spec.Repetitions = 1
	fioOut, _, err := fioOutput(sb.Spec.Fio)
	if err != nil {
		t.Fatal(err)
	}
	launch, err := mpi.BuildLaunch(&mb.Spec, mpi.Options{IORDir: "/data"})
	if err != nil {
		t.Fatal(err)
	}
	launcherOut, err := launcherOutput(launch)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := serveNamespace(ctx, t.TempDir(), ns, map[string][]byte{fioContainer: fioOut, launcherContainer: launcherOut, children.NodeFactsContainer: nodeFactsOutput()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), cl) })

	var nodes int
	for _, names := range kwokNodes(t) {
		nodes += len(names)
	}

	// When each benchmark's first child appears, as seen from here.
	var mu sync.Mutex
	created := map[string]time.Time{} // "<kind>/<name>" -> Create returned
	child := map[string]time.Time{}
	launcher := map[string]time.Time{} // MPIBenchmark name -> its launcher pod appeared
	seen := func(kind string) func(obj any) {
		return func(obj any) {
			o, ok := obj.(metav1.Object)
			if !ok || o.GetLabels()[benchv1.KindLabel] != kind {
				return
			}
			key := kind + "/" + o.GetLabels()[benchv1.BenchmarkLabel]
			mu.Lock()
			if _, ok := child[key]; !ok {
				child[key] = time.Now()
			}
			mu.Unlock()
		}
	}
	// A watch of the namespace's Jobs, MPIJobs and benchmarks, so that
	// measuring puts no polling load on the API server.
	watch, err := crcache.New(restCfg, crcache.Options{Scheme: scheme, DefaultNamespaces: map[string]crcache.Config{ns: {}}})
	if err != nil {
		t.Fatal(err)
	}
	for kind, obj := range map[string]client.Object{"StorageBenchmark": &batchv1.Job{}, "MPIBenchmark": &mpiv2.MPIJob{}} {
		inf, err := watch.GetInformer(ctx, obj)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen(kind)}); err != nil {
			t.Fatal(err)
		}
	}
	// The MPI Operator's part: from the MPIJob to its launcher pod.
	podInf, err := watch.GetInformer(ctx, &corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := podInf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		o, ok := obj.(metav1.Object)
		if !ok || o.GetLabels()[benchv1.KindLabel] != "MPIBenchmark" || o.GetLabels()["benchwright.io/role"] != "launcher" {
			return
		}
		mu.Lock()
		if name := o.GetLabels()[benchv1.BenchmarkLabel]; launcher[name].IsZero() {
			launcher[name] = time.Now()
		}
		mu.Unlock()
	}}); err != nil {
		t.Fatal(err)
	}
	for _, obj := range []client.Object{&benchv1.StorageBenchmark{}, &benchv1.MPIBenchmark{}} {
		if _, err := watch.GetInformer(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	go func() { _ = watch.Start(ctx) }()
	if !watch.WaitForCacheSync(ctx) {
		t.Fatal("the watch cache did not sync")
	}

	reqBefore, partsBefore := restRequests(t)
	errsBefore := reconcileErrors(t)
	histBefore := scaleHistograms(t)
	hwmBefore := procStatus(t, "VmHWM")
	cpuBefore := componentCPU()
	t.Logf("scale: %d StorageBenchmarks and %d MPIBenchmarks on %d nodes; manager before: VmHWM %d KiB, %0.f API requests", nStorage, nMPI, nodes, hwmBefore, reqBefore)

	began := time.Now()
	var objs []client.Object
	for i := range nStorage {
		b := sb.DeepCopy()
		b.Name, b.Namespace = fmt.Sprintf("fio-%03d", i), ns
		objs = append(objs, b)
	}
	for i := range nMPI {
		b := mb.DeepCopy()
		b.Name, b.Namespace = fmt.Sprintf("osu-%03d", i), ns
		objs = append(objs, b)
	}
	work := make(chan client.Object)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				if err := k8s.Create(ctx, o); err != nil {
					t.Errorf("creating %s: %v", o.GetName(), err)
					continue
				}
				kind := "StorageBenchmark"
				if _, ok := o.(*benchv1.MPIBenchmark); ok {
					kind = "MPIBenchmark"
				}
				mu.Lock()
				created[kind+"/"+o.GetName()] = time.Now()
				mu.Unlock()
			}
		}()
	}
	for _, o := range objs {
		work <- o
	}
	close(work)
	wg.Wait()
	createdIn := time.Since(began)

	// Until every benchmark has Succeeded (or one Failed).
	done := map[string]time.Duration{}
	timeout := time.Duration(envInt(t, "E2E_SCALE_TIMEOUT", 1800)) * time.Second
	var peakRSS int64
	for {
		peakRSS = max(peakRSS, procStatus(t, "VmRSS"))
		ok, failed, err := countSucceeded(ctx, watch, ns)
		if err != nil {
			t.Fatal(err)
		}
		for kind, want := range map[string]int{"StorageBenchmark": nStorage, "MPIBenchmark": nMPI} {
			if _, have := done[kind]; !have && ok[kind] == want {
				done[kind] = time.Since(began)
			}
		}
		if len(failed) > 0 {
			t.Errorf("%d benchmark(s) failed, e.g. %s", len(failed), failed[0])
			break
		}
		if len(done) == 2 {
			break
		}
		if time.Since(began) > timeout {
			t.Errorf("after %s: %d of %d StorageBenchmarks and %d of %d MPIBenchmarks Succeeded", timeout, ok["StorageBenchmark"], nStorage, ok["MPIBenchmark"], nMPI)
			break
		}
		time.Sleep(time.Second)
	}
	total := time.Since(began)
	reqAfter, partsAfter := restRequests(t)
	errsAfter := reconcileErrors(t)
	histAfter := scaleHistograms(t)
	hwm := procStatus(t, "VmHWM")
	cpuAfter := componentCPU()

	mu.Lock()
	lat := map[string][]time.Duration{}
	missing := map[string]int{}
	for key, c := range created {
		kind := strings.SplitN(key, "/", 2)[0]
		if at, ok := child[key]; ok {
			lat[kind] = append(lat[kind], at.Sub(c))
		} else {
			missing[kind]++
		}
	}
	var operator []time.Duration
	for name, at := range launcher {
		if c, ok := child["MPIBenchmark/"+name]; ok {
			operator = append(operator, at.Sub(c))
		}
	}
	mu.Unlock()
	sort.Slice(operator, func(i, j int) bool { return operator[i] < operator[j] })

	var b strings.Builder
	fmt.Fprintf(&b, "\nbenchwright e2e scale: %d StorageBenchmarks + %d MPIBenchmarks on %d kwok nodes (created in %s)\n", nStorage, nMPI, nodes, createdIn.Round(time.Millisecond))
	fmt.Fprintf(&b, "%-18s %6s %14s %14s %14s %14s\n", "kind", "count", "all Succeeded", "create->child", "p99", "max")
	for _, kind := range []string{"StorageBenchmark", "MPIBenchmark"} {
		d := lat[kind]
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		allDone := "-"
		if v, ok := done[kind]; ok {
			allDone = v.Round(100 * time.Millisecond).String()
		}
		fmt.Fprintf(&b, "%-18s %6d %14s %14s %14s %14s", kind, map[string]int{"StorageBenchmark": nStorage, "MPIBenchmark": nMPI}[kind],
			allDone, pct(d, 0.50), pct(d, 0.99), pct(d, 1))
		if missing[kind] > 0 {
			fmt.Fprintf(&b, "  (%d never got a child)", missing[kind])
		}
		b.WriteString("\n")
	}
	n := float64(nStorage + nMPI)
	fmt.Fprintf(&b, "MPI Operator: MPIJob->launcher pod p50 %s, p99 %s, max %s (%d launchers)\n", pct(operator, 0.5), pct(operator, 0.99), pct(operator, 1), len(operator))
	fmt.Fprintf(&b, "all Succeeded after %s\n", total.Round(100*time.Millisecond))
	fmt.Fprintf(&b, "manager: peak RSS (VmHWM) %.1f MiB (%.1f MiB before; highest VmRSS sampled %.1f MiB)\n", float64(hwm)/1024, float64(hwmBefore)/1024, float64(peakRSS)/1024)
	fmt.Fprintf(&b, "manager: %.0f API requests (rest_client_requests_total), %.1f per benchmark:", reqAfter-reqBefore, (reqAfter-reqBefore)/n)
	var keys []string
	for k := range partsAfter {
		if partsAfter[k]-partsBefore[k] > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return partsAfter[keys[i]]-partsBefore[keys[i]] > partsAfter[keys[j]]-partsBefore[keys[j]]
	})
	for _, k := range keys {
		fmt.Fprintf(&b, " %s %.1f,", k, (partsAfter[k]-partsBefore[k])/n)
	}
	b.WriteString(" per benchmark\n")
	fmt.Fprintf(&b, "manager: %.0f reconcile errors (controller_runtime_reconcile_errors_total), %.2f per benchmark\n", errsAfter-errsBefore, (errsAfter-errsBefore)/n)
	var names []string
	for name := range cpuAfter {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		return cpuAfter[names[i]]-cpuBefore[names[i]] > cpuAfter[names[j]]-cpuBefore[names[j]]
	})
	b.WriteString("CPU seconds during the run:")
	for _, name := range names {
		fmt.Fprintf(&b, " %s %.1f,", name, cpuAfter[name]-cpuBefore[name])
	}
	fmt.Fprintf(&b, " of %.0f s x %d cores\n", total.Seconds(), runtime.NumCPU())
	b.WriteString("manager: where the time goes (histograms over the run: count, mean, p99 bucket)\n")
	b.WriteString(histAfter.report(histBefore))
	sl, ml := lat["StorageBenchmark"], lat["MPIBenchmark"]
	fmt.Fprintf(&b, "growth: n=%d total=%.1fs storage_p50=%s storage_p99=%s mpi_p50=%s mpi_p99=%s operator_p50=%s operator_p99=%s rss_mib=%.1f req=%.1f errors=%.2f\n",
		nStorage+nMPI, total.Seconds(), pct(sl, 0.5), pct(sl, 0.99), pct(ml, 0.5), pct(ml, 0.99), pct(operator, 0.5), pct(operator, 0.99),
		float64(hwm)/1024, (reqAfter-reqBefore)/n, (errsAfter-errsBefore)/n)
	fmt.Println(b.String())
	if out := os.Getenv("E2E_SCALE_REPORT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// countSucceeded counts the benchmarks of ns with Succeeded by kind, and
// names those that Failed.
func countSucceeded(ctx context.Context, r client.Reader, ns string) (map[string]int, []string, error) {
	ok := map[string]int{}
	var failed []string
	var sbs benchv1.StorageBenchmarkList
	if err := r.List(ctx, &sbs, client.InNamespace(ns)); err != nil {
		return nil, nil, err
	}
	var mbs benchv1.MPIBenchmarkList
	if err := r.List(ctx, &mbs, client.InNamespace(ns)); err != nil {
		return nil, nil, err
	}
	check := func(kind, name string, cs []metav1.Condition) {
		if meta.IsStatusConditionTrue(cs, benchv1.ConditionSucceeded) {
			ok[kind]++
		}
		if c := meta.FindStatusCondition(cs, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
			failed = append(failed, fmt.Sprintf("%s %s: %s: %s", kind, name, c.Reason, c.Message))
		}
	}
	for _, b := range sbs.Items {
		check("StorageBenchmark", b.Name, b.Status.Conditions)
	}
	for _, b := range mbs.Items {
		check("MPIBenchmark", b.Name, b.Status.Conditions)
	}
	return ok, failed, nil
}

// pct is the q-quantile of sorted d (nearest rank).
func pct(d []time.Duration, q float64) string {
	if len(d) == 0 {
		return "-"
	}
	i := int(q*float64(len(d))+0.5) - 1
	i = min(max(i, 0), len(d)-1)
	return d[i].Round(time.Millisecond).String()
}

// restRequests is the sum of the manager's rest_client_requests_total, and
// its parts by method and code ("PUT 409").
func restRequests(t *testing.T) (float64, map[string]float64) {
	t.Helper()
	resp := getMetrics(t)
	defer resp.Body.Close()
	var sum float64
	parts := map[string]float64{}
	found := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "rest_client_requests_total{") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		sum += v
		parts[label(line, "method")+" "+label(line, "code")] += v
		found = true
	}
	if !found {
		_, _ = io.Copy(io.Discard, resp.Body)
		t.Fatalf("no rest_client_requests_total at %s", env["MANAGER_METRICS"])
	}
	return sum, parts
}

// reconcileErrors is the sum of the manager's
// controller_runtime_reconcile_errors_total.
func reconcileErrors(t *testing.T) float64 {
	t.Helper()
	resp := getMetrics(t)
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "controller_runtime_reconcile_errors_total{") {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatalf("metrics line %q: %v", line, err)
			}
			sum += v
		}
	}
	return sum
}

// label is a label's value in a Prometheus text line.
func label(line, name string) string {
	_, rest, ok := strings.Cut(line, name+`="`)
	if !ok {
		return "?"
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// procStatus reads a KiB field (VmHWM, VmRSS) of the manager's /proc/<pid>/status.
func procStatus(t *testing.T, field string) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/" + env["MANAGER_PID"] + "/status")
	if err != nil {
		t.Fatalf("the manager's status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%s/status", field, env["MANAGER_PID"])
	return 0
}

// componentCPU is the CPU time (user + system, seconds) so far of the
// manager, the MPI Operator and the cluster's components.
func componentCPU() map[string]float64 {
	pids := map[string]string{"manager": env["MANAGER_PID"], "mpi-operator": env["MPI_OPERATOR_PID"]}
	files, _ := filepath.Glob(filepath.Join(env["CLUSTER_PIDS"], "*.pid"))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			pids[strings.TrimSuffix(filepath.Base(f), ".pid")] = strings.TrimSpace(string(data))
		}
	}
	out := map[string]float64{}
	for name, pid := range pids {
		data, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: utime and stime
		// are the 12th and 13th, in clock ticks (100 per second on Linux).
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		out[name] = (u + s) / 100
	}
	return out
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}
