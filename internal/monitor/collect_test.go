package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/runstore"
	"github.com/benchwright/benchwright/internal/sampler"
)

// logs serves one log per container, or an error.
type logs map[string]string

func (l logs) ReadLog(_ context.Context, _, _, container string) ([]byte, error) {
	log, ok := l[container]
	if !ok {
		return nil, errors.New("container not found")
	}
	return []byte(log), nil
}

func newRun(t *testing.T) (runstore.Run, string) {
	t.Helper()
	dir := t.TempDir()
	store, err := artifacts.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return runstore.Run{Store: store, Location: artifacts.Location{Namespace: "perf", Kind: "StorageBenchmark", Name: "db", UID: "u1"}}, dir
}

func sampledPod(restarts int32) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "db-fio-r0-abc", Namespace: "perf"},
		Spec:       corev1.PodSpec{NodeName: "n1", InitContainers: []corev1.Container{{Name: children.SamplerContainer}}},
		Status:     corev1.PodStatus{InitContainerStatuses: []corev1.ContainerStatus{{Name: children.SamplerContainer, RestartCount: restarts}}},
	}
}

// series is a sampler log of n points a second apart from Unix ms 1000000,
// the node 50 % busy.
func series(n int) string {
	var b strings.Builder
	h, _ := json.Marshal(sampler.Header{V: sampler.Version, Start: 1_000_000, Interval: 1, Budget: sampler.DefaultBudget, Fields: map[string][]string{
		"cpu": sampler.CPUFields, "cores": sampler.CoreFields, "mem": sampler.MemFields, "psi": sampler.PSIFields,
		"disk": sampler.DiskFields, "net": sampler.NetFields, "pod": sampler.PodFields}})
	b.WriteString(sampler.HeaderPrefix + string(h) + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s{\"t\":%d,\"dt\":1,\"cpu\":[50,0,0,0,0,0,0,50]}\n", sampler.PointPrefix, 1_000_000+i*1000)
	}
	b.WriteString(sampler.NotePrefix + `{"t":1010000,"note":"stopped"}` + "\n")
	return b.String()
}

func TestCollectStoresAndSummarises(t *testing.T) {
	run, dir := newRun(t)
	phases := []sampler.Phase{sampler.NewPhase("read", time.UnixMilli(1_000_000), time.UnixMilli(1_005_000))}
	samples, warning, err := Collect(context.Background(), logs{children.SamplerContainer: series(10)}, run, 0, sampledPod(0), phases)
	if err != nil || warning != "" {
		t.Fatalf("err %v, warning %q", err, warning)
	}
	if len(samples) == 0 || samples[0].Test != "read" || samples[0].Metric != sampler.MetricCPUUtil || samples[0].Value != 50 {
		t.Errorf("samples %+v: want node_cpu_util 50 for read first", samples)
	}
	data, err := os.ReadFile(filepath.Join(dir, "perf/StorageBenchmark/db/u1/monitor/0/db-fio-r0-abc.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil || len(rec.Series.Points) != 10 || rec.Node != "n1" || !rec.Complete() || len(rec.Phases) != 1 {
		t.Errorf("stored record %+v (%v)", rec, err)
	}
}

func TestCollectWarnsAndNeverFails(t *testing.T) {
	run, _ := newRun(t)
	for name, tc := range map[string]struct {
		logs     logs
		restarts int32
		want     string
	}{
		"log unreadable":     {logs{}, 0, "the sampler's log could not be read"},
		"no series":          {logs{children.SamplerContainer: "\x1b[31mgarbage\n"}, 0, "the sampler's log has no series"},
		"sampler restarted":  {logs{children.SamplerContainer: series(3)}, 2, "the sampler restarted 2 time(s)"},
		"garbage among them": {logs{children.SamplerContainer: series(3) + sampler.PointPrefix + "{oops\n"}, 0, "1× a point that is not the sampler's JSON"},
		"over its budget":    {logs{children.SamplerContainer: series(3) + strings.Repeat("x", maxSamplerLog)}, 0, "over the 9 MiB a sampler writes"},
	} {
		t.Run(name, func(t *testing.T) {
			_, warning, err := Collect(context.Background(), tc.logs, run, 0, sampledPod(tc.restarts), nil)
			if err != nil || !strings.Contains(warning, tc.want) {
				t.Errorf("err %v, warning %q; want %q", err, warning, tc.want)
			}
			if strings.ContainsRune(warning, '\x1b') || len(warning) > maxWarning {
				t.Errorf("warning %q: escapes or over %d bytes", warning, maxWarning)
			}
		})
	}
	if s, w, err := Collect(context.Background(), logs{}, run, 0, &corev1.Pod{}, nil); s != nil || w != "" || err != nil {
		t.Errorf("a pod without the sampler: %v %q %v", s, w, err)
	}
}

func TestContainerPhases(t *testing.T) {
	at := func(s int64) metav1.Time { return metav1.NewTime(time.Unix(s, 0)) }
	pod := &corev1.Pod{Status: corev1.PodStatus{
		InitContainerStatuses: []corev1.ContainerStatus{
			{Name: "write", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: at(100), FinishedAt: at(110)}}},
			{Name: "dd-prepare", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: at(90), FinishedAt: at(99)}}},
		},
		ContainerStatuses: []corev1.ContainerStatus{
			{Name: "read", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: at(111), FinishedAt: at(120)}}},
			{Name: "running", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
		},
	}}
	got := ContainerPhases(pod, map[string]string{"write": "write", "read": "read", "running": "running"})
	if len(got) != 2 || got[0].Test != "write" || got[0].StartMs != 100_000 || got[0].EndMs != 111_000 || got[1].Test != "read" || got[1].EndMs != 121_000 {
		t.Errorf("phases %+v", got)
	}
}
