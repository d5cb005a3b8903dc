//go:build real

package real

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/monitor"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
	"github.com/benchwright/benchwright/test/util"
)

// checkMonitor checks what the sampler sidecars left of a run: a complete
// series per pod and repetition, at about one point a second, with the
// tests as phases and the disk behind the first volume named, and the
// summary samples in samples.ndjson. tests are each series' phases in order
// (nil: any, at least one). It returns the samples of the sampler.
func checkMonitor(t *testing.T, uri string, reps int, tests []string, volume string) []results.Sample {
	t.Helper()
	dir := storeDir(t, uri)
	files, err := filepath.Glob(filepath.Join(dir, "monitor", "*", "*.json"))
	if err != nil || len(files) < reps {
		t.Fatalf("%d series under %s/monitor, want one per pod and repetition (%d repetitions): %v", len(files), dir, reps, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rec monitor.Record
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s := rec.Series
		if !rec.Complete() {
			t.Errorf("%s: incomplete: restarts %d, problems %q", f, rec.Restarts, s.Problems)
		}
		var phases []string
		for _, p := range rec.Phases {
			phases = append(phases, p.Test)
			// The kubelet starts the tool once the sampler's process runs,
			// not once it has read: a first step can begin before the
			// first reading, by the time the binary takes to start.
			if last := s.Points[len(s.Points)-1].T; p.EndMs <= p.StartMs || p.EndMs <= s.Header.Start || p.StartMs >= last ||
				p.StartMs < s.Header.Start-2000 {
				t.Errorf("%s: phase %+v outside the series (%d to %d)", f, p, s.Header.Start, last)
			}
		}
		if tests != nil && !slices.Equal(phases, tests) || len(phases) == 0 {
			t.Errorf("%s: phases %v, want %v", f, phases, tests)
		}
		span := float64(s.Points[len(s.Points)-1].T-s.Header.Start) / 1000
		if n := float64(len(s.Points)); n < span*0.8 || s.Points[0].CPU == nil || s.Points[0].Pod == nil {
			t.Errorf("%s: %d points over %.1f s (first %+v): want one a second with CPU and the pod's processes", f, len(s.Points), span, s.Points[0])
		}
		if volume != "" && !validDevice(s.Header.Volumes[volume]) {
			t.Errorf("%s: volumes %v: no disk named for %s", f, s.Header.Volumes, volume)
		}
		// An MPI worker's series is read while it runs, before the worker
		// is released; every other pod's sampler was stopped by the
		// kubelet's SIGTERM when the tool ended.
		stopped := len(s.Notes) > 0 && s.Notes[len(s.Notes)-1].Note == "stopped"
		if !stopped && !strings.Contains(rec.Pod, "-worker-") {
			t.Errorf("%s: notes %v: the sampler was not stopped by the kubelet's SIGTERM", f, s.Notes)
		}
		t.Logf("%s: %d points, phases %v, volumes %v, notes %d", filepath.Base(f), len(s.Points), phases, s.Header.Volumes, len(s.Notes))
	}
	data, err := os.ReadFile(filepath.Join(dir, "samples.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := results.ReadNDJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []results.Sample
	for _, s := range all {
		if s.Labels[sampler.LabelSource] == sampler.SourceValue {
			out = append(out, s)
		}
	}
	for _, test := range tests {
		if !slices.ContainsFunc(out, func(s results.Sample) bool { return s.Test == test && s.Metric == sampler.MetricCPUUtil }) {
			t.Errorf("no %s summary for test %s in samples.ndjson", sampler.MetricCPUUtil, test)
		}
	}
	return out
}

func validDevice(s string) bool {
	return s != "" && !bytes.Contains([]byte(s), []byte(":"))
}

// A sampler killed mid-run (SIGKILL, from the host, as the OOM killer would)
// is restarted by the kubelet; the benchmark still succeeds with its
// figures, the stored series says it is its restarted sampler's, and a
// MonitoringIncomplete event says the series is incomplete.
func TestSamplerKilledMidRun(t *testing.T) {
	ns := newNamespace(t)
	b := &benchv1.StorageBenchmark{}
	util.LoadExample(t, "quickstart/fio.yaml", b)
	b.Namespace, b.Spec.Repetitions = ns, 1
	if err := k8s.Create(ctx(), b); err != nil {
		t.Fatal(err)
	}
	var killed int
	util.WaitFor(t, 3*time.Minute, "the sampler running", func() (bool, string) {
		var pods corev1.PodList
		if err := k8s.List(ctx(), &pods, client.InNamespace(ns)); err != nil || len(pods.Items) == 0 || pods.Items[0].Status.Phase != corev1.PodRunning {
			return false, "no running pod"
		}
		pid := samplerPID(t, string(pods.Items[0].UID))
		if pid == 0 {
			return false, "no sampler process of pod " + pods.Items[0].Name
		}
		time.Sleep(3 * time.Second) // a few points first
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed = pid
		return true, ""
	})
	t.Logf("killed the sampler, pid %d", killed)
	waitSucceeded(t, b, &b.Status.BenchmarkStatusCommon, 5*time.Minute)
	if len(b.Status.Results) == 0 || b.Status.Results[0].Read == nil {
		t.Fatalf("no figures: %+v", b.Status.Results)
	}
	files, _ := filepath.Glob(filepath.Join(storeDir(t, b.Status.ArtifactURI), "monitor", "0", "*.json"))
	if len(files) != 1 {
		t.Fatalf("series %v, want one", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec monitor.Record
	if err := json.Unmarshal(data, &rec); err != nil || rec.Restarts < 1 || rec.Complete() {
		t.Errorf("stored series: restarts %d, complete %v (%v): want the restarted sampler's, incomplete", rec.Restarts, rec.Complete(), err)
	}
	// The manager's event recorder writes asynchronously: the event can
	// land just after the status that reports success.
	var message string
	util.WaitFor(t, 30*time.Second, "a MonitoringIncomplete event", func() (bool, string) {
		var events corev1.EventList
		if err := k8s.List(ctx(), &events, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		i := slices.IndexFunc(events.Items, func(e corev1.Event) bool { return e.Reason == "MonitoringIncomplete" })
		if i < 0 {
			return false, fmt.Sprintf("none among %d events", len(events.Items))
		}
		message = events.Items[i].Message
		return true, ""
	})
	t.Logf("event: %s", message)
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// samplerPID is the host pid of the sampler of the pod with that UID (the
// real nodes' containers are this host's processes), 0 when none runs.
func samplerPID(t testing.TB, podUID string) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	uid := strings.ReplaceAll(podUID, "-", "_")
	for _, f := range procs {
		cmd, err := os.ReadFile(f)
		if err != nil || !bytes.HasPrefix(cmd, []byte("/benchwright\x00sample\x00")) {
			continue
		}
		dir := filepath.Dir(f)
		cg, err := os.ReadFile(filepath.Join(dir, "cgroup"))
		if err != nil || !strings.Contains(string(cg), podUID) && !strings.Contains(string(cg), uid) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(dir))
		return pid
	}
	return 0
}
