//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// kwokNodes are the dev cluster's nodes by machine type.
func kwokNodes(t *testing.T) map[string][]string {
	t.Helper()
	var nodes corev1.NodeList
	if err := k8s.List(context.Background(), &nodes, client.MatchingLabels{"type": "kwok"}); err != nil {
		t.Fatal(err)
	}
	byType := map[string][]string{}
	for _, n := range nodes.Items {
		mt := n.Labels[benchv1.MachineTypeLabel]
		byType[mt] = append(byType[mt], n.Name)
	}
	for _, names := range byType {
		sort.Strings(names)
	}
	return byType
}

// A BenchmarkPool over the existing nodes of one machine type, a TuningProfile
// on it (examples/tuning/network-latency.yaml), and a fio benchmark that
// names both: the pool labels and taints exactly those nodes, the tuner
// DaemonSet's pods land on them and nowhere else, the benchmark waits for
// Tuned and runs there; deleting the profile and the pool undoes all of it.
func TestPoolTuningAndBenchmark(t *testing.T) {
	ctx := context.Background()
	byType := kwokNodes(t)
	var types []string
	for mt := range byType {
		types = append(types, mt)
	}
	sort.Strings(types)
	if len(types) < 2 {
		t.Skipf("the dev cluster has nodes of %d machine type(s): a pool of one type needs another type left out (MACHINE_TYPES)", len(types))
	}
	machine := types[len(types)-1]
	poolNodes := byType[machine]
	suffix := rand.String(5)

	pool := &benchv1.BenchmarkPool{}
	util.LoadExample(t, "pools/existing.yaml", pool)
	pool.Name = "e2e-" + strings.SplitN(machine, "-", 2)[0] + "-" + suffix
	pool.Spec.Existing.NodeSelector = map[string]string{benchv1.MachineTypeLabel: machine}
	if err := k8s.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	poolGone := false
	t.Cleanup(func() {
		if !poolGone {
			_ = k8s.Delete(context.Background(), pool)
		}
	})
	util.WaitFor(t, time.Minute, "pool "+pool.Name+" Ready", func() (bool, string) {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(pool), pool); err != nil {
			return false, err.Error()
		}
		return meta.IsStatusConditionTrue(pool.Status.Conditions, benchv1.PoolConditionReady) && int(pool.Status.ReadyNodes) == len(poolNodes),
			fmt.Sprintf("ready nodes %d of %d, conditions %s", pool.Status.ReadyNodes, len(poolNodes), conditions(pool.Status.Conditions))
	})
	checkPoolMarks(t, pool.Name, poolNodes)
	out := kubectl(t, "get", "benchmarkpools", pool.Name)
	t.Logf("kubectl get benchmarkpools:\n%s", out)
	if row := util.Table(t, out)[0]; row["PROVIDER"] != "existing" || row["READY"] != fmt.Sprint(len(poolNodes)) {
		t.Errorf("kubectl get benchmarkpools: row %v, want provider existing, ready %d", row, len(poolNodes))
	}

	profile := &benchv1.TuningProfile{}
	util.LoadExample(t, "tuning/network-latency.yaml", profile)
	profile.Name = "e2e-latency-" + suffix
	profile.Spec.Pool = benchv1.PoolName(pool.Name)
	if err := k8s.Create(ctx, profile); err != nil {
		t.Fatal(err)
	}
	profileGone := false
	t.Cleanup(func() {
		if !profileGone {
			_ = k8s.Delete(context.Background(), profile)
		}
	})
	util.WaitFor(t, time.Minute, "profile "+profile.Name+" Tuned", func() (bool, string) {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(profile), profile); err != nil {
			return false, err.Error()
		}
		return meta.IsStatusConditionTrue(profile.Status.Conditions, benchv1.TuningConditionTuned),
			fmt.Sprintf("tuned %d of %d nodes, conditions %s", profile.Status.TunedNodes, profile.Status.DesiredNodes, conditions(profile.Status.Conditions))
	})
	checkLogServer(t)
	if int(profile.Status.DesiredNodes) != len(poolNodes) || int(profile.Status.TunedNodes) != len(poolNodes) {
		t.Errorf("profile: tuned %d of %d nodes, want %d of %d (the pool's)", profile.Status.TunedNodes, profile.Status.DesiredNodes, len(poolNodes), len(poolNodes))
	}
	tuners := tunerPods(t, profile.Name)
	var on []string
	for _, p := range tuners {
		on = append(on, p.Spec.NodeName)
	}
	sort.Strings(on)
	if !slices.Equal(on, poolNodes) {
		t.Errorf("tuner pods run on %v, want exactly the pool's nodes %v", on, poolNodes)
	}
	out = kubectl(t, "get", "tuningprofiles", profile.Name)
	t.Logf("kubectl get tuningprofiles:\n%s", out)
	if row := util.Table(t, out)[0]; row["POOL"] != pool.Name || row["STATE"] != "Tuned" || row["TUNED"] != fmt.Sprint(len(poolNodes)) {
		t.Errorf("kubectl get tuningprofiles: row %v", row)
	}

	// A benchmark on the pool, with the profile.
	ns := newNamespace(t)
	b := &benchv1.StorageBenchmark{}
	util.LoadExample(t, "quickstart/fio.yaml", b)
	b.Namespace = ns
	b.Spec.NodeSelector = nil
	b.Spec.Pool = benchv1.PoolName(pool.Name)
	b.Spec.Tuning = benchv1.TuningProfileName(profile.Name)
	b.Spec.Repetitions = 1
	if err := k8s.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	waitSucceeded(t, storageBench{b}, 3*time.Minute)
	var pods corev1.PodList
	if err := k8s.List(ctx, &pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if !slices.Contains(poolNodes, p.Spec.NodeName) {
			t.Errorf("benchmark pod %s ran on %s, outside pool %s %v", p.Name, p.Spec.NodeName, pool.Name, poolNodes)
		}
	}
	for _, n := range b.Status.Nodes {
		if !slices.Contains(poolNodes, n) {
			t.Errorf("status.nodes has %s, outside pool %s %v", n, pool.Name, poolNodes)
		}
	}
	util.DeleteAndWaitGone(t, k8s, b, time.Minute)

	// Deleting the profile takes its DaemonSet and pods away, then the profile.
	if err := k8s.Delete(ctx, profile); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, time.Minute, "profile "+profile.Name+" and its tuner pods gone", func() (bool, string) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(profile), profile)
		left := tunerPods(t, profile.Name)
		var ds appsv1.DaemonSetList
		if err := k8s.List(ctx, &ds, client.MatchingLabels{benchv1.TuningProfileLabel: profile.Name}); err != nil {
			return false, err.Error()
		}
		return apierrors.IsNotFound(err) && len(left) == 0 && len(ds.Items) == 0,
			fmt.Sprintf("profile: %v, %d tuner pods, %d DaemonSets", err, len(left), len(ds.Items))
	})
	profileGone = true

	if err := k8s.Delete(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, time.Minute, "pool "+pool.Name+" gone", func() (bool, string) {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(pool), pool)
		return apierrors.IsNotFound(err), fmt.Sprintf("%v", err)
	})
	poolGone = true
	checkPoolMarks(t, pool.Name, nil)
}

// checkPoolMarks: exactly the nodes named carry the pool's label and taint.
func checkPoolMarks(t *testing.T, pool string, want []string) {
	t.Helper()
	var nodes corev1.NodeList
	if err := k8s.List(context.Background(), &nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		labelled := n.Labels[benchv1.PoolLabel] == pool
		tainted := slices.ContainsFunc(n.Spec.Taints, func(tt corev1.Taint) bool {
			return tt.Key == benchv1.PoolLabel && tt.Value == pool && tt.Effect == corev1.TaintEffectNoSchedule
		})
		if in := slices.Contains(want, n.Name); labelled != in || tainted != in {
			t.Errorf("node %s (%s): pool label %v, taint %v; want %v", n.Name, n.Labels[benchv1.MachineTypeLabel], labelled, tainted, in)
		}
	}
}

// tunerPods are the profile's tuner pods (in the manager's namespace).
func tunerPods(t *testing.T, profile string) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods, client.MatchingLabels{benchv1.TuningProfileLabel: profile}); err != nil {
		t.Fatal(err)
	}
	return pods.Items
}
