package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/test/util"
	"github.com/benchwright/benchwright/test/wrappers"
)

// The chart's campaign-labels policy on the real API server: a co-tenant
// who may create and update benchmarks cannot put one into a campaign's
// history (its labels key the configuration), nor move a campaign's run
// out of it; the campaign account and admins can, and the co-tenant still
// edits a campaign benchmark's other fields.
func TestChartPolicyCampaignLabelsAreTheCampaigns(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "clabels-")
	campaigns := testNamespace(t, "clabels-campaigns-")
	createAll(t, renderChart(t, "clabels", ns, campaigns, "templates/campaign-labels.yaml"))
	account := "system:serviceaccount:" + campaigns + ":benchwright-campaign"
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "clabels-bench-author"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"benchwright.io"}, Resources: []string{"storagebenchmarks"}, Verbs: []string{"get", "create", "update", "patch"},
	}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "clabels-bench-author"},
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "bob"},
			{Kind: "ServiceAccount", Namespace: campaigns, Name: "benchwright-campaign"}}}
	for _, o := range []client.Object{role, binding} {
		if err := k8sClient.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), o) })
	}
	as := func(user string, groups ...string) client.Client {
		c := rest.CopyConfig(cfg)
		c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
		cl, err := client.New(c, client.Options{Scheme: scheme})
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	bob, campaignAccount := as("bob"), as(account, "system:serviceaccounts")
	bench := func(name string, labels map[string]string) *benchv1.StorageBenchmark {
		b := wrappers.MakeStorageBenchmark(name, ns).Pool("clabels-no-pool").EmptyDir("", "").FioPreset(benchv1.FioPresetGCEPD).Obj()
		b.Labels = labels
		return b
	}
	nightly := map[string]string{benchv1.CampaignLabel: "nightly-x7k2p", campaign.PoolLabel: "c2", campaign.TuningLabel: "off", campaign.BenchmarkLabel: "4k"}
	const refusal = "key a campaign's history: only its Workflows"

	util.WaitFor(t, 30*time.Second, "bob's labelled benchmark refused", func() (bool, string) {
		b := bench("bob-poison", nightly)
		err := bob.Create(ctx, b)
		if err == nil {
			_ = k8sClient.Delete(ctx, b)
			return false, "accepted"
		}
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), refusal), err.Error()
	})
	// Only the series label is enough to join a configuration.
	if err := bob.Create(ctx, bench("bob-series", map[string]string{campaign.BenchmarkLabel: "4k"})); !apierrors.IsForbidden(err) {
		t.Errorf("bob's benchmark with a campaign entry label: %v, want Forbidden", err)
	}
	own := bench("bob-own", map[string]string{"team": "hpc"})
	if err := bob.Create(ctx, own); err != nil {
		t.Fatalf("bob's own benchmark: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), own) })
	if err := bob.Patch(ctx, own, client.RawPatch("application/merge-patch+json", []byte(`{"metadata": {"labels": {"benchwright.io/campaign": "nightly-x7k2p"}}}`))); !apierrors.IsForbidden(err) {
		t.Errorf("bob labelling his benchmark into the campaign: %v, want Forbidden", err)
	}

	cell := bench("nightly-x7k2p-c2-off-4k", nightly)
	if err := campaignAccount.Create(ctx, cell); err != nil {
		t.Fatalf("the campaign's benchmark: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), cell) })
	if err := bob.Patch(ctx, cell, client.RawPatch("application/merge-patch+json", []byte(`{"metadata": {"labels": {"team": "hpc"}}}`))); err != nil {
		t.Errorf("bob adding another label to the campaign's benchmark: %v", err)
	}
	for _, patch := range []string{
		`{"metadata": {"labels": {"benchwright.io/campaign": null}}}`,
		`{"metadata": {"labels": {"benchwright.io/campaign-tuning": "on"}}}`,
	} {
		if err := bob.Patch(ctx, cell, client.RawPatch("application/merge-patch+json", []byte(patch))); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), refusal) {
			t.Errorf("bob patching %s: %v, want Forbidden", patch, err)
		}
	}
	admin := bench("admin-labelled", nightly)
	if err := k8sClient.Create(ctx, admin); err != nil {
		t.Errorf("an admin's labelled benchmark: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), admin) })
}
