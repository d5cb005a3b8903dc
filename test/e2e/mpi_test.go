//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// The quickstart OSU benchmark through the real MPI Operator: per repetition
// an MPIJob, whose worker the operator waits to be ready before it creates
// the launcher Job, whose pod "prints" the step log of `benchwright steps`
// around real osu_latency and osu_bw output.
func TestMPIQuickstartOSU(t *testing.T) {
	ns := newNamespace(t)
	b := &benchv1.MPIBenchmark{}
	util.LoadExample(t, "quickstart/osu-latency.yaml", b)
	b.Namespace = ns
	ctx := context.Background()
	if err := k8s.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	waitSucceeded(t, mpiBench{b}, 4*time.Minute)
	checkLogServer(t)

	var jobs mpiv2.MPIJobList
	if err := k8s.List(ctx, &jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d MPIJobs after %d repetitions", len(jobs.Items), b.Spec.Repetitions)
	for _, j := range jobs.Items {
		succeeded := false
		for _, c := range j.Status.Conditions {
			succeeded = succeeded || (c.Type == mpiv2.JobSucceeded && c.Status == "True")
		}
		if !succeeded {
			t.Errorf("MPIJob %s: the MPI Operator did not mark it Succeeded: %+v", j.Name, j.Status.Conditions)
		}
	}

	// cleanPodPolicy Running: the MPI Operator deletes the workers, which
	// kwok keeps running, once the launcher is done.
	util.WaitFor(t, 30*time.Second, "worker pods deleted (cleanPodPolicy: Running)", func() (bool, string) {
		var pods corev1.PodList
		if err := k8s.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{roleLabel: "worker"}); err != nil {
			return false, err.Error()
		}
		return len(pods.Items) == 0, fmt.Sprintf("%d worker pods left", len(pods.Items))
	})

	for _, test := range b.Spec.Tests {
		table, err := osuTable(test)
		if err != nil {
			t.Fatal(err)
		}
		var res *benchv1.MPITestResult
		for i := range b.Status.Results {
			if b.Status.Results[i].Test == test {
				res = &b.Status.Results[i]
			}
		}
		if res == nil || len(res.Points) == 0 {
			t.Errorf("%s: no figures in the status", test)
			continue
		}
		for _, p := range res.Points {
			want, ok := table[p.Size]
			if !ok {
				t.Errorf("%s: size %d is not in OSU's table", test, p.Size)
				continue
			}
			if p.Median != want || p.Min != want || p.Max != want || int(p.N) != int(b.Spec.Repetitions) {
				t.Errorf("%s at %d B: median %v min %v max %v over %d, want %v over %d", test, p.Size, p.Median, p.Min, p.Max, p.N, want, b.Spec.Repetitions)
			}
		}
		t.Logf("%s: %d sizes, %d..%d B, as OSU printed them", test, len(res.Points), res.Points[0].Size, res.Points[len(res.Points)-1].Size)
	}
	s := b.Status.Summary
	lat, _ := osuTable("osu_latency")
	bw, _ := osuTable("osu_bw")
	if s.LatencyMicroseconds == nil || s.LatencyMessageSize == nil || *s.LatencyMicroseconds != lat[*s.LatencyMessageSize] {
		t.Errorf("summary latency %v at %v B does not match OSU's table", s.LatencyMicroseconds, s.LatencyMessageSize)
	}
	var peak float64
	for size, v := range bw {
		if size >= b.Spec.MessageSizes.Min && size <= b.Spec.MessageSizes.Max {
			peak = max(peak, v)
		}
	}
	if s.PeakBandwidthMBps == nil || *s.PeakBandwidthMBps != peak {
		t.Errorf("summary peak bandwidth %v, want %v (the largest of osu_bw's table within %d..%d B)", s.PeakBandwidthMBps, peak, b.Spec.MessageSizes.Min, b.Spec.MessageSizes.Max)
	}

	out := kubectl(t, "get", "mpibenchmarks", "-n", ns)
	t.Logf("kubectl get mpibenchmarks:\n%s", out)
	row := util.Table(t, out)[0]
	for col, want := range map[string]string{"NAME": b.Name, "SUITE": "osu", "MPI": "OpenMPI", "STATE": "Succeeded", "PROGRESS": "3/3", "LAYOUT": "1x2 core"} {
		if row[col] != want {
			t.Errorf("kubectl get: column %s = %q, want %q (row %v)", col, row[col], want, row)
		}
	}
	if row["LATENCY(US)"] == "" || row["PEAK(MB/S)"] == "" {
		t.Errorf("kubectl get: no latency or peak bandwidth in %v", row)
	}
	checkArtifacts(t, b.Status.ArtifactURI, int(b.Spec.Repetitions))
	util.DeleteAndWaitGone(t, k8s, b, time.Minute)
}
