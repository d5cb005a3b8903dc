package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// A campaign's profile tunes only a pool of the same campaign: the campaign
// account may name only a pool after its profile, and another team's pool of
// that name stays untouched until it is the campaign's.
func TestTuningProfileOfACampaignTunesOnlyItsCampaignsPool(t *testing.T) {
	e := newTuningEnv(t)
	ctx := context.Background()
	in, _ := e.poolNodes(t, "tpc-pool")
	pool := &benchv1.BenchmarkPool{
		ObjectMeta: metav1.ObjectMeta{Name: "tpc-pool", Labels: map[string]string{benchv1.CampaignLabel: "other-team"}},
		Spec:       benchv1.BenchmarkPoolSpec{Provider: benchv1.ProviderGKE, GKE: &benchv1.GKEPoolSpec{MachineType: "c2-standard-60", NodeCount: 1}},
	}
	if err := k8sClient.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, pool) })

	p := campaignProfile(t, e, "tpc-pool", "s3-ladder")
	reason := func(p *benchv1.TuningProfile) bool {
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionTuned)
		return c != nil && c.Reason == benchv1.ReasonPoolNotInCampaign && c.ObservedGeneration == p.Generation
	}
	got := waitProfile(t, p.Name, "PoolNotInCampaign", reason)
	want := "BenchmarkPool tpc-pool belongs to campaign other-team: a profile of campaign s3-ladder tunes only pools labelled benchwright.io/campaign=s3-ladder"
	if c := tpCondition(t, got, benchv1.TuningConditionTuned); c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	time.Sleep(time.Second) // a few polls: still no tuner
	err := k8sClient.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: "tpc-pool-tuner"}, &appsv1.DaemonSet{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("tuner DaemonSet of a profile kept off another team's pool: %v", err)
	}
	for _, n := range in {
		e.nodes.untouched(t, n)
	}

	// The pool becomes the campaign's: now it is tuned.
	pool.Labels[benchv1.CampaignLabel] = "s3-ladder"
	if err := k8sClient.Update(ctx, pool); err != nil {
		t.Fatal(err)
	}
	waitProfile(t, p.Name, "Tuned", isTuned)
}

// A campaign's profile whose pool does not exist yet waits, and when deleted
// it goes without sending a restorer anywhere.
func TestTuningProfileOfACampaignWaitsForItsPool(t *testing.T) {
	e := newTuningEnv(t)
	e.poolNodes(t, "tpw-pool") // nodes labelled with the pool's name, but no BenchmarkPool
	p := campaignProfile(t, e, "tpw-pool", "s3-ladder")
	got := waitProfile(t, p.Name, "waiting", func(p *benchv1.TuningProfile) bool {
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionTuned)
		return c != nil && c.Reason == benchv1.ReasonPoolNotInCampaign && strings.Contains(c.Message, "does not exist yet")
	})
	if err := k8sClient.Delete(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	waitGone(t, got, 10*time.Second)
	var list appsv1.DaemonSetList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(e.ns)); err != nil || len(list.Items) != 0 {
		t.Errorf("DaemonSets after deleting a profile that never tuned: %d (%v)", len(list.Items), err)
	}
}

// campaignProfile creates a campaign's profile of pool, named after it as the
// campaign's admission policy requires, and deletes it when the test ends.
func campaignProfile(t *testing.T, e *tuningEnv, pool, campaign string) *benchv1.TuningProfile {
	t.Helper()
	p := &benchv1.TuningProfile{
		ObjectMeta: metav1.ObjectMeta{Name: pool, Labels: map[string]string{benchv1.CampaignLabel: campaign}},
		Spec:       benchv1.TuningProfileSpec{Pool: benchv1.PoolName(pool), Sysctls: []benchv1.Sysctl{{Name: "vm.swappiness", Value: "10"}}},
	}
	if err := k8sClient.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k8sClient.Delete(context.Background(), p)
		waitGone(t, p, 30*time.Second)
	})
	return p
}
