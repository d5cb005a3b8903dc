package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/yamldoc"
	"github.com/benchwright/benchwright/test/util"
)

// managerAccount is the manager's ServiceAccount (config/rbac).
const managerAccount = "benchwright-manager"

// bindGeneratedRBAC installs config/rbac/role.yaml for a manager in ns: the
// ClusterRole (renamed after ns) and the Role of the manager's namespace
// (moved to ns), each bound to the manager's ServiceAccount there.
func bindGeneratedRBAC(t *testing.T, ns string) {
	t.Helper()
	ctx := testContext(t)
	objs, err := yamldoc.ReadFile(filepath.Join(util.RepoRoot(), "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: managerAccount, Namespace: ns}}
	kinds := map[string]bool{}
	for _, obj := range objs {
		ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: obj.GetKind()}
		var binding client.Object
		switch obj.GetKind() {
		case "ClusterRole":
			obj.SetName("manager-role-" + ns)
			ref.Name = obj.GetName()
			binding = &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: obj.GetName()}, RoleRef: ref, Subjects: subject}
		case "Role":
			obj.SetNamespace(ns)
			ref.Name = obj.GetName()
			binding = &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: obj.GetName(), Namespace: ns}, RoleRef: ref, Subjects: subject}
		default:
			t.Fatalf("config/rbac/role.yaml holds a %s", obj.GetKind())
		}
		kinds[obj.GetKind()] = true
		for _, o := range []client.Object{obj, binding} {
			if err := k8sClient.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = k8sClient.Delete(testContext(t), o) })
		}
	}
	if !kinds["ClusterRole"] || !kinds["Role"] {
		t.Fatalf("config/rbac/role.yaml holds %v, want a ClusterRole and the Role of the manager's namespace", kinds)
	}
	// The API server's authorizer learns of new roles from its informers: wait
	// until it grants one rule of each, or a review asked too soon says no.
	for _, attr := range []authzv1.ResourceAttributes{
		{Verb: "create", Group: "apps", Resource: "daemonsets", Namespace: ns},
		{Verb: "list", Resource: "nodes"},
	} {
		util.WaitFor(t, 10*time.Second, fmt.Sprintf("the generated roles bound in %s granting %+v", ns, attr), func() (bool, string) {
			return managerMay(t, ns, attr), "not granted"
		})
	}
}

// managerMay asks the API server whether the manager's ServiceAccount in ns
// may do attr.
func managerMay(t *testing.T, ns string, attr authzv1.ResourceAttributes) bool {
	t.Helper()
	sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + ns + ":" + managerAccount,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
		ResourceAttributes: &attr,
	}}
	if err := k8sClient.Create(testContext(t), sar); err != nil {
		t.Fatal(err)
	}
	return sar.Status.Allowed
}

// The manager's DaemonSets and ConfigMaps (the tuners') stay in its
// namespace: outside it, it may not even read them (a benchmark's pods read
// their input from their own annotation).
func TestGeneratedRBACKeepsTunerWritesInTheManagerNamespace(t *testing.T) {
	ns := testNamespace(t, "rbac-")
	bindGeneratedRBAC(t, ns)
	can := func(verb, group, resource, namespace string) bool {
		return managerMay(t, ns, authzv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Namespace: namespace})
	}
	for _, tc := range []struct {
		verb, group, resource, namespace string
		want                             bool
	}{
		{"create", "apps", "daemonsets", ns, true},
		{"patch", "apps", "daemonsets", ns, true},
		{"delete", "apps", "daemonsets", ns, true},
		{"watch", "apps", "daemonsets", ns, true},
		{"patch", "", "configmaps", ns, true},
		{"delete", "", "configmaps", ns, true},
		{"list", "", "configmaps", ns, true},
		{"create", "", "configmaps", "default", false},
		{"get", "", "configmaps", "default", false},
		{"list", "", "configmaps", "", false},
		{"create", "apps", "daemonsets", "default", false},
		{"patch", "apps", "daemonsets", "default", false},
		{"delete", "apps", "daemonsets", "default", false},
		{"list", "apps", "daemonsets", "", false},
		{"update", "", "configmaps", "default", false},
		{"patch", "", "configmaps", "kube-system", false},
		{"delete", "", "configmaps", "default", false},
	} {
		if got := can(tc.verb, tc.group, tc.resource, tc.namespace); got != tc.want {
			t.Errorf("%s may %s %s.%s in namespace %q: %v, want %v", managerAccount, tc.verb, tc.resource, tc.group, tc.namespace, got, tc.want)
		}
	}
}

// TestManagerRunsOnTheGeneratedRBAC runs cmd/manager as its ServiceAccount
// with config/rbac's roles alone: its caches sync (DaemonSets watched in its
// namespace only), and a TuningProfile gets its tuner there and is finalized.
func TestManagerRunsOnTheGeneratedRBAC(t *testing.T) {
	ctx := testContext(t)
	ns := testNamespace(t, "rbac-")
	bindGeneratedRBAC(t, ns)
	dir := t.TempDir()
	bin := filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", bin, "./cmd/manager")
	build.Dir = util.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the manager: %v\n%s", err, out)
	}
	sa, err := testEnv.AddUser(envtest.User{Name: "system:serviceaccount:" + ns + ":" + managerAccount,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := sa.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kubeconfig"), kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	probe := freePort(t)
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig="+filepath.Join(dir, "kubeconfig"), "--artifact-store=file://"+t.TempDir(),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", probe), "--metrics-bind-address=0", "--artifact-server-bind-address=0")
	cmd.Env = append(os.Environ(), "POD_NAMESPACE="+ns)
	logPath := filepath.Join(dir, "manager.log")
	logs, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		out, _ := os.ReadFile(logPath)
		if strings.Contains(string(out), "forbidden") {
			t.Errorf("the manager was refused something its roles should grant:\n%s", out)
		} else if t.Failed() {
			t.Logf("manager log:\n%s", out)
		}
	})
	waitForOK(t, fmt.Sprintf("http://127.0.0.1:%d/readyz", probe))

	p := &benchv1.TuningProfile{ObjectMeta: metav1.ObjectMeta{Name: ns}, Spec: benchv1.TuningProfileSpec{
		Pool: benchv1.PoolName(ns), Sysctls: []benchv1.Sysctl{{Name: "net.core.busy_poll", Value: "50"}},
	}}
	if err := k8sClient.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(testContext(t), p) })
	waitProfile(t, p.Name, "NoNodes, its tuner applied", func(p *benchv1.TuningProfile) bool {
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.TuningConditionTuned)
		return c != nil && c.Reason == benchv1.ReasonNoNodes
	})
	key := client.ObjectKey{Namespace: ns, Name: p.Name + "-tuner"}
	if err := k8sClient.Get(ctx, key, &appsv1.DaemonSet{}); err != nil {
		t.Errorf("the tuner DaemonSet in the manager's namespace: %v", err)
	}
	if err := k8sClient.Get(ctx, key, &corev1.ConfigMap{}); err != nil {
		t.Errorf("the tuner ConfigMap in the manager's namespace: %v", err)
	}
	if err := k8sClient.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	waitGone(t, p, 30*time.Second)
	waitGone(t, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: key.Name}}, 10*time.Second)
}

// The chart's manager may get Workflows in argo.namespace (a campaign's
// pools and tunings name theirs) and do nothing else with them anywhere; the
// generated roles, bound too, grant nothing on Workflows.
func TestChartLetsTheManagerGetWorkflowsInTheCampaignsNamespaceOnly(t *testing.T) {
	ns := testNamespace(t, "rbac-")
	campaigns := testNamespace(t, "rbac-wf-")
	bindGeneratedRBAC(t, ns)
	var created int
	for _, o := range renderChart(t, "benchwright", ns, campaigns, "templates/argo/rbac.yaml") {
		if o.GetName() != "benchwright-manager-workflows" {
			continue // the campaign account's roles
		}
		if err := k8sClient.Create(testContext(t), o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(testContext(t), o) })
		created++
	}
	if created != 2 {
		t.Fatalf("the chart rendered %d objects named benchwright-manager-workflows, want its Role and RoleBinding", created)
	}
	get := authzv1.ResourceAttributes{Verb: "get", Group: "argoproj.io", Resource: "workflows", Namespace: campaigns, Name: "c1"}
	util.WaitFor(t, 10*time.Second, "the chart's Role granting get on Workflows in "+campaigns, func() (bool, string) {
		return managerMay(t, ns, get), "not granted"
	})
	for _, attr := range []authzv1.ResourceAttributes{
		{Verb: "list", Group: "argoproj.io", Resource: "workflows", Namespace: campaigns},
		{Verb: "watch", Group: "argoproj.io", Resource: "workflows", Namespace: campaigns},
		{Verb: "delete", Group: "argoproj.io", Resource: "workflows", Namespace: campaigns, Name: "c1"},
		{Verb: "patch", Group: "argoproj.io", Resource: "workflows", Namespace: campaigns, Name: "c1"},
		{Verb: "create", Group: "argoproj.io", Resource: "workflows", Namespace: campaigns},
		{Verb: "get", Group: "argoproj.io", Resource: "workflowtemplates", Namespace: campaigns, Name: "c1"},
		{Verb: "get", Group: "argoproj.io", Resource: "workflows", Namespace: ns, Name: "c1"},
		{Verb: "get", Group: "argoproj.io", Resource: "workflows", Namespace: "default", Name: "c1"},
		{Verb: "list", Group: "argoproj.io", Resource: "workflows"},
	} {
		if managerMay(t, ns, attr) {
			t.Errorf("%s may %s %s.%s %q in namespace %q", managerAccount, attr.Verb, attr.Resource, attr.Group, attr.Name, attr.Namespace)
		}
	}
}
