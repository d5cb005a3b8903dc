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
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
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
	eventually(t, 30*time.Second, "alice refused", func() (bool, string) {
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
