package integration

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	campaignpkg "github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/internal/yamldoc"
	"github.com/benchwright/benchwright/test/util"
)

// The chart's ValidatingAdmissionPolicy on the real API server: a user outside
// the admin groups cannot set allowUnlistedSysctls; an admin can, and the
// profile can then be updated by others as long as it keeps the flag.
func TestChartPolicyAllowUnlistedSysctlsIsForAdmins(t *testing.T) {
	ctx := context.Background()
	helm, err := util.Helm()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(helm, "template", "benchwright", util.RepoRoot()+"/charts/benchwright",
		"--namespace", "benchwright-system", "--show-only", "templates/admission.yaml").Output()
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	objs, err := yamldoc.Decode(out)
	if err != nil || len(objs) != 2 {
		t.Fatalf("rendered %d objects (%v)", len(objs), err)
	}
	for _, o := range objs {
		if err := k8sClient.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), o) })
	}
	// alice may create and update TuningProfiles (RBAC), but is no admin.
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "tuning-author"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"benchwright.io"}, Resources: []string{"tuningprofiles"}, Verbs: []string{"get", "create", "update"},
	}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "tuning-author"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}}}
	for _, o := range []client.Object{role, binding} {
		if err := k8sClient.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), o) })
	}
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: "alice", Groups: []string{"team-a", "system:authenticated"}}
	alice, err := client.New(as, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	profile := func(name string, unlisted bool) *benchv1.TuningProfile {
		return &benchv1.TuningProfile{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: benchv1.TuningProfileSpec{
			Pool:                 "p",
			Sysctls:              []benchv1.Sysctl{{Name: "kernel.panic", Value: "10"}},
			AllowUnlistedSysctls: unlisted,
		}}
	}
	// The policy takes a moment to be enforced after it is created.
	util.WaitFor(t, 30*time.Second, "alice refused", func() (bool, string) {
		err := alice.Create(ctx, profile("alice-unlisted", true))
		if err == nil {
			_ = k8sClient.Delete(ctx, profile("alice-unlisted", true))
			return false, "accepted"
		}
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "allowUnlistedSysctls is for cluster admins (groups system:masters)"), err.Error()
	})
	// Without the flag the API's own allow-list refuses kernel.panic: alice's
	// own profiles keep to the allow-list.
	ok := profile("alice-listed", false)
	ok.Spec.Sysctls = []benchv1.Sysctl{{Name: "vm.swappiness", Value: "10"}}
	if err := alice.Create(ctx, ok); err != nil {
		t.Fatalf("alice's listed profile: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), ok) })
	// An admin may; alice may then edit the rest of that profile.
	admin := profile("admin-unlisted", true)
	if err := k8sClient.Create(ctx, admin); err != nil {
		t.Fatalf("admin: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), admin) })
	var got benchv1.TuningProfile
	if err := alice.Get(ctx, client.ObjectKeyFromObject(admin), &got); err != nil {
		t.Fatal(err)
	}
	got.Spec.Sysctls[0].Value = "20"
	if err := alice.Update(ctx, &got); err != nil {
		t.Errorf("alice updating an admin's unlisted profile: %v", err)
	}
	// But she cannot turn it on in her own.
	if err := alice.Get(ctx, client.ObjectKeyFromObject(ok), &got); err != nil {
		t.Fatal(err)
	}
	got.Spec.AllowUnlistedSysctls = true
	if err := alice.Update(ctx, &got); !apierrors.IsForbidden(err) {
		t.Errorf("alice turning allowUnlistedSysctls on: %v, want Forbidden", err)
	}
}

// An admin who sets argo.limits.existingPools false keeps campaigns to GKE
// pools, on the real API server.
func TestChartPolicyExistingPoolsOff(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "campaign-noexist-")
	campaigns := testNamespace(t, "campaigns-noexist-")
	createAll(t, renderChartWith(t, "noexist", ns, campaigns, []string{"argo.limits.existingPools=false"}, "templates/argo/rbac.yaml", "templates/argo/admission.yaml"))
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + campaigns + ":benchwright-campaign",
		Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	campaign, err := client.New(as, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	existing := &benchv1.BenchmarkPool{
		ObjectMeta: metav1.ObjectMeta{Name: "noexist-cell", Labels: map[string]string{benchv1.CampaignLabel: "s0"}},
		Spec: benchv1.BenchmarkPoolSpec{Provider: benchv1.ProviderExisting,
			Existing: &benchv1.ExistingPoolSpec{NodeSelector: map[string]string{"benchwright.io/benchmark-node": "true"}}},
	}
	const msg = "a campaign's pools are GKE pools here (chart value argo.limits.existingPools is false)"
	util.WaitFor(t, 30*time.Second, "an existing pool refused", func() (bool, string) {
		err := campaign.Create(ctx, existing)
		if err == nil {
			_ = k8sClient.Delete(ctx, existing)
			return false, "accepted"
		}
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), msg), err.Error()
	})
}

// renderChart renders the chart's templates (helm's --show-only paths) as
// release in namespace ns, with Argo campaigns on in namespace campaigns.
func renderChart(t *testing.T, release, ns, campaigns string, templates ...string) []*unstructured.Unstructured {
	t.Helper()
	return renderChartWith(t, release, ns, campaigns, nil, templates...)
}

// renderChartWith is renderChart with values set (helm's --set).
func renderChartWith(t *testing.T, release, ns, campaigns string, sets []string, templates ...string) []*unstructured.Unstructured {
	t.Helper()
	helm, err := util.Helm()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"template", release, util.RepoRoot() + "/charts/benchwright", "--namespace", ns,
		"--set", "argo.enabled=true", "--set", "argo.namespace=" + campaigns}
	for _, set := range sets {
		args = append(args, "--set", set)
	}
	for _, tmpl := range templates {
		args = append(args, "--show-only", tmpl)
	}
	out, err := exec.Command(helm, args...).Output()
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	objs, err := yamldoc.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// createAll creates objs (as the test's admin) and deletes them when the test ends.
func createAll(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := k8sClient.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), o) })
	}
}

// The chart's campaign policy on the real API server, for the campaign's
// ServiceAccount (impersonated, with the chart's RBAC): it creates, changes
// and deletes only pools and tunings labelled as a campaign's, and only safe
// specs; another team's pool is out of its reach although RBAC allows it.
func TestChartPolicyKeepsCampaignsToTheirOwnObjects(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "campaign-vap-")
	campaigns := testNamespace(t, "campaigns-vap-")
	createAll(t, renderChart(t, "vap", ns, campaigns, "templates/argo/rbac.yaml", "templates/argo/admission.yaml"))
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + campaigns + ":benchwright-campaign",
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + campaigns, "system:authenticated"},
	}
	campaign, err := client.New(as, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	const label = benchv1.CampaignLabel
	pool := func(name string, labels map[string]string) *benchv1.BenchmarkPool {
		return &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: "cvap-" + name, Labels: labels}, Spec: benchv1.BenchmarkPoolSpec{
			Provider: benchv1.ProviderGKE, GKE: &benchv1.GKEPoolSpec{MachineType: "c2-standard-60", NodeCount: 1},
		}}
	}
	tuning := func(name string, labels map[string]string) *benchv1.TuningProfile {
		return &benchv1.TuningProfile{ObjectMeta: metav1.ObjectMeta{Name: "cvap-" + name, Labels: labels}, Spec: benchv1.TuningProfileSpec{
			Pool: benchv1.PoolName("cvap-" + name), Sysctls: []benchv1.Sysctl{{Name: "vm.swappiness", Value: "10"}},
		}}
	}
	ours := map[string]string{label: "s0-x7k2p"}
	refused := func(what string, err error, msg string) {
		t.Helper()
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want Forbidden: %s", what, err, msg)
		}
	}

	// The policy takes a moment to be enforced after it is created.
	util.WaitFor(t, 30*time.Second, "an unlabelled pool refused", func() (bool, string) {
		p := pool("unlabelled", nil)
		err := campaign.Create(ctx, p)
		if err == nil {
			_ = k8sClient.Delete(ctx, p)
			return false, "accepted"
		}
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "carry the label benchwright.io/campaign"), err.Error()
	})

	// A cell reads why its pool went, from its Workflow's events
	// (campaign.WorkflowEvents); the manager's namespace's are not its.
	if _, err := campaignpkg.WorkflowEvents(ctx, campaign, campaignpkg.Workflow{Namespace: campaigns, Name: "s0-x7k2p"}); err != nil {
		t.Errorf("the campaign's events: %v", err)
	}
	if _, err := campaignpkg.WorkflowEvents(ctx, campaign, campaignpkg.Workflow{Namespace: ns, Name: "s0-x7k2p"}); !apierrors.IsForbidden(err) {
		t.Errorf("another namespace's events: %v, want Forbidden", err)
	}

	// Its own pool and tuning: created, changed, deleted.
	own, ownTuning := pool("cell", ours), tuning("cell", ours)
	for _, o := range []client.Object{own, ownTuning} {
		if err := campaign.Create(ctx, o); err != nil {
			t.Fatalf("the campaign creating its %T: %v", o, err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), o) })
	}
	merge := func(patch string) client.Patch { return client.RawPatch(types.MergePatchType, []byte(patch)) }
	if err := campaign.Patch(ctx, ownTuning, merge(`{"spec": {"sysctls": [{"name": "vm.swappiness", "value": "20"}]}}`)); err != nil {
		t.Errorf("the campaign changing its tuning: %v", err)
	}
	refused("dropping the label", campaign.Patch(ctx, ownTuning, merge(`{"metadata": {"labels": null}}`)), "carry the label benchwright.io/campaign, unchanged")

	// Another team's pool and tuning: neither changed, labelled nor deleted.
	team, teamTuning := pool("team-a", nil), tuning("team-a", nil)
	createAll(t, []*unstructured.Unstructured{toUnstructured(t, team), toUnstructured(t, teamTuning)})
	const notOurs = "a campaign changes and deletes only the pools and tunings it created"
	refused("deleting a team's pool", campaign.Delete(ctx, pool("team-a", nil)), notOurs)
	refused("deleting a team's tuning", campaign.Delete(ctx, tuning("team-a", nil)), notOurs)
	refused("labelling a team's pool", campaign.Patch(ctx, pool("team-a", nil), merge(`{"metadata": {"labels": {"`+label+`": "s0-x7k2p"}}}`)), notOurs)
	// A campaign's apply of a pool of the same name patches it: refused too.
	refused("applying over a team's pool", campaign.Patch(ctx, toUnstructured(t, pool("team-a", ours)), client.Apply, client.FieldOwner("campaign"), client.ForceOwnership), notOurs)

	// Unsafe specs, even labelled.
	unlisted := tuning("unlisted", ours)
	unlisted.Spec.AllowUnlistedSysctls = true
	refused("allowUnlistedSysctls", campaign.Create(ctx, unlisted), "a campaign cannot set allowUnlistedSysctls")
	selector := tuning("selector", ours)
	selector.Spec.Pool, selector.Spec.NodeSelector = "", map[string]string{"benchwright.io/benchmark-node": "true"}
	refused("a nodeSelector tuning", campaign.Create(ctx, selector), "a campaign tunes only its own cell's pool")
	elsewhere := tuning("elsewhere", ours)
	elsewhere.Spec.Pool = benchv1.PoolName(team.Name)
	refused("tuning a team's pool", campaign.Create(ctx, elsewhere), "a campaign tunes only its own cell's pool")
	remote := pool("remote", ours)
	remote.Spec.GKE.Project, remote.Spec.GKE.Location, remote.Spec.GKE.Cluster = "other-project", "us-central1", "hpc"
	refused("a pool in another cluster", campaign.Create(ctx, remote), "a campaign's node pools are in the manager's own GKE cluster")
	// GKE's linuxNodeConfig takes kernel.sysrq (the magic SysRq keys: reboot,
	// crash, kill all) among its allow-list: not from a campaign. (The CRD
	// itself refuses kernel.core_pattern, which GKE's list does not hold.)
	sysrq := pool("sysrq", ours)
	sysrq.Spec.GKE.LinuxNodeConfig = &benchv1.GKELinuxNodeConfig{Sysctls: []benchv1.Sysctl{{Name: "kernel.sysrq", Value: "1"}}}
	refused("kernel.sysrq on a GKE pool", campaign.Create(ctx, sysrq), "a campaign's GKE pool sets none of the node's protections")
	busyPoll := pool("busy-poll", ours)
	busyPoll.Spec.GKE.LinuxNodeConfig = &benchv1.GKELinuxNodeConfig{Sysctls: []benchv1.Sysctl{{Name: "net.core.busy_poll", Value: "50"}}}
	if err := campaign.Create(ctx, busyPoll); err != nil {
		t.Errorf("net.core.busy_poll on a campaign's GKE pool: %v", err)
	} else {
		t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), busyPoll) })
	}
	// The chart's limits (argo.limits): nodes per pool, machine types.
	big := pool("big", ours)
	big.Spec.GKE.NodeCount = 9
	refused("9 nodes", campaign.Create(ctx, big), "a campaign's GKE pool has at most 8 nodes (chart value argo.limits.maxNodesPerPool): cvap-big asks for 9")
	gpu := pool("gpu", ours)
	gpu.Spec.GKE.MachineType = "a3-megagpu-8g"
	refused("a GPU machine", campaign.Create(ctx, gpu), "a campaign's GKE pools use the machine types c2-*, c2d-*")
	existing := pool("existing", ours)
	existing.Spec.Provider, existing.Spec.GKE = benchv1.ProviderExisting, nil
	existing.Spec.Existing = &benchv1.ExistingPoolSpec{NodeSelector: map[string]string{"benchwright.io/benchmark-node": "true"}}
	if err := campaign.Create(ctx, existing); err != nil {
		t.Errorf("an existing pool with existingPools on (the default): %v", err)
	} else {
		t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), existing) })
	}

	for _, o := range []client.Object{ownTuning, own} {
		if err := campaign.Delete(ctx, o); err != nil {
			t.Errorf("the campaign deleting its own %T: %v", o, err)
		}
	}
}

func toUnstructured(t *testing.T, o client.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	gvk, err := apiutil.GVKForObject(o, scheme)
	if err != nil {
		t.Fatal(err)
	}
	u.SetGroupVersionKind(gvk)
	return u
}
