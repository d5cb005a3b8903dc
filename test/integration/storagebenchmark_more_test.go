package integration

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/results"
)

// dd on a persistent disk, in the modes of seed 004, with the page cache
// dropped before each repetition.
func TestStorageBenchmarkRunsDDOnClaims(t *testing.T) {
	requireTool(t, "dd")
	createNode(t, "node-a", "n2-standard-4")
	env := newStorageEnv(t, nil)
	b := waitFinished(t, env.createBenchmark(t, "dd", `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 2
dropCaches: true
volumes: {size: 1Gi, storageClassName: premium-rwo}
dd:
  tests:
  - {name: write-dsync, operation: write, blockSize: 1M, count: 16, oflag: dsync}
  - {name: read-buffered, operation: read, blockSize: 1M, count: 16}
`), 60*time.Second)
	if c := condition(t, b, benchv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
	}
	if len(b.Status.Results) != 2 || b.Status.Results[0].Write == nil || b.Status.Results[1].Read == nil ||
		b.Status.Results[0].Write.BandwidthMiBps.N != 2 {
		t.Fatalf("results %+v", b.Status.Results)
	}
	if !strings.HasSuffix(b.Status.Headline, " MiB/s write-dsync") || b.Status.Volumes != "1x1Gi premium-rwo" {
		t.Errorf("headline %q volumes %q", b.Status.Headline, b.Status.Volumes)
	}
	// Each dd test's summary line, as dd printed it, is in the stored log.
	for _, log := range rawLogs(t, env.store, b) {
		parsed, err := fio.ParseDD(log)
		if err != nil || len(parsed) != 2 || parsed[0].Bytes != 16<<20 {
			t.Errorf("stored dd log: %v %+v\n%s", err, parsed, log)
		}
		if !strings.Contains(string(log), "==> container write-dsync: dd if=/dev/zero of=/data/0/benchwright-dd.dat oflag=dsync bs=1M count=16 <==") {
			t.Errorf("stored dd log lacks its step headers:\n%s", log)
		}
	}
	var jobs batchv1.JobList
	if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(env.ns)); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs.Items {
		pod := j.Spec.Template.Spec
		var init []string
		for _, c := range pod.InitContainers {
			init = append(init, c.Name)
		}
		if !slices.Equal(init, []string{"sampler", "node-facts", "drop-caches", "write-dsync"}) || pod.Containers[0].Name != "read-buffered" {
			t.Errorf("Job %s steps: init %v, main %s", j.Name, init, pod.Containers[0].Name)
		}
		if c := pod.Volumes[0].PersistentVolumeClaim; c == nil || c.ClaimName != "dd-data0" {
			t.Errorf("Job %s volume %+v", j.Name, pod.Volumes[0])
		}
	}
	checkStoredResults(t, env.store, b, 2)
	checkChildren(t, b)
}

// dd by several processes at once, run for real from the pod's argv: the
// processes' files, the untimed preparation of the files a read needs, the
// aggregate bandwidth in the status and each process's figures in the samples.
func TestStorageBenchmarkRunsDDProcesses(t *testing.T) {
	requireTool(t, "dd")
	requireTool(t, "sh")
	createNode(t, "node-a", "n2-standard-4")
	env := newStorageEnv(t, nil)
	b := waitFinished(t, env.createBenchmark(t, "ddp", `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 1
volumes: {size: 1Gi, storageClassName: premium-rwo}
dd:
  tests:
  - {name: write-3, operation: write, blockSize: 1M, count: 4, oflag: dsync, processes: 3}
  - {name: read-4, operation: read, blockSize: 1M, count: 4, processes: 4}
`), 60*time.Second)
	if c := condition(t, b, benchv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
	}
	if len(b.Status.Results) != 2 || b.Status.Results[0].Write == nil || b.Status.Results[1].Read == nil {
		t.Fatalf("results %+v", b.Status.Results)
	}
	ctx := context.Background()
	key, _ := storageLocation(b).SamplesNDJSON()
	data, err := env.store.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadNDJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	perProcess := map[string]int{}
	for _, s := range samples {
		got[s.Test+"/"+s.Metric] = s.Value
		if strings.HasSuffix(s.Metric, "_bw_process") {
			perProcess[s.Test]++
		}
	}
	if got["write-3/write_bytes"] != 3*4<<20 || got["read-4/read_bytes"] != 4*4<<20 || perProcess["write-3"] != 3 || perProcess["read-4"] != 4 {
		t.Errorf("samples: bytes %v / %v, per-process bandwidths %v; want 3 and 4 processes of 4 MiB", got["write-3/write_bytes"], got["read-4/read_bytes"], perProcess)
	}
	if bw := b.Status.Results[1].Read.BandwidthMiBps.Median; math.Abs(bw-got["read-4/read_bw"]) > 1e-9*bw {
		t.Errorf("status read bandwidth %v, samples' aggregate %v", bw, got["read-4/read_bw"])
	}
	for _, log := range rawLogs(t, env.store, b) {
		if !strings.Contains(string(log), "==> container dd-prepare: /bin/sh -c ") || strings.Count(string(log), "\n==> benchwright dd process ") != 4+3+4 {
			t.Errorf("stored dd log lacks the preparation or a process:\n%s", log)
		}
	}
}

// Distributed fio: one pod per node, figures summed over nodes.
func TestStorageBenchmarkOnTwoNodes(t *testing.T) {
	requireTool(t, "fio")
	createNode(t, "node-a", "n2-standard-4")
	createNode(t, "node-b", "n2-standard-4")
	env := newStorageEnv(t, nil)
	env.kubelet.node = func(j *batchv1.Job) string {
		return map[string]string{"0": "node-a", "1": "node-b"}[j.Labels["benchwright.io/slot"]]
	}
	spec := strings.Replace(smallFio, "repetitions: 2", "repetitions: 1\nnodes: 2", 1)
	b := waitFinished(t, env.createBenchmark(t, "two", spec), 60*time.Second)
	if c := condition(t, b, benchv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
	}
	if !slices.Equal(b.Status.Nodes, []string{"node-a", "node-b"}) {
		t.Errorf("nodes %v", b.Status.Nodes)
	}
	var sum float64
	raw := rawLogs(t, env.store, b)
	if len(raw) != 2 {
		t.Fatalf("%d raw logs, want one per node", len(raw))
	}
	for _, log := range raw {
		samples, err := fio.ParseJSON(log)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			if s.Test == "randread-4k-qd4" && s.Metric == "read_iops" {
				sum += s.Value
			}
		}
	}
	if got := b.Status.Results[0].Read.IOPS.Median; math.Abs(got-sum) > 1e-6*sum {
		t.Errorf("read IOPS %v, want the sum over nodes %v", got, sum)
	}
	var jobs batchv1.JobList
	if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(env.ns)); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 2 {
		var names []string
		for _, j := range jobs.Items {
			names = append(names, fmt.Sprintf("%s (created %s, uid %s)", j.Name, j.CreationTimestamp.Format(time.RFC3339), j.UID))
		}
		t.Fatalf("%d Jobs, want one per node: %v; events of %s: %v", len(jobs.Items), names, b.Name, events(t, env.ns, b.Name))
	}
	for _, j := range jobs.Items {
		aff := j.Spec.Template.Spec.Affinity
		if aff == nil || aff.PodAntiAffinity == nil || aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != corev1.LabelHostname {
			t.Errorf("Job %s does not keep its pods on separate nodes: %+v", j.Name, aff)
		}
	}
}
