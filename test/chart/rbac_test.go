package chart_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// tunerSA is the tuner's ServiceAccount, which must hold no RBAC.
const tunerSA = "benchwright-tuner"

// dangerousVerbs let a subject grant or take more than its rules say.
var dangerousVerbs = []string{"*", "escalate", "bind", "impersonate"}

// rbacViolations lists what in objs breaks least privilege: wildcards,
// Secrets, privilege-granting verbs, aggregated roles, bindings of the tuner,
// bindings to roles the chart does not render, a tuner with a token.
func rbacViolations(objs []object) []string {
	var out []string
	add := func(o object, format string, args ...any) {
		out = append(out, o.String()+": "+fmt.Sprintf(format, args...))
	}
	rendered := map[string]bool{} // "Kind/namespace/name" of the roles
	for _, o := range objs {
		switch o.Kind {
		case "Role", "ClusterRole":
			var r rbacv1.ClusterRole // a Role has the same rules
			if err := yaml.Unmarshal(o.raw, &r); err != nil {
				add(o, "%v", err)
				continue
			}
			key := o.Kind + "//" + o.Name
			if o.Kind == "Role" {
				key = o.Kind + "/" + o.Namespace + "/" + o.Name
			}
			rendered[key] = true
			if r.AggregationRule != nil {
				add(o, "aggregates other roles")
			}
			for i, rule := range r.Rules {
				for field, values := range map[string][]string{
					"apiGroups": rule.APIGroups, "resources": rule.Resources, "verbs": rule.Verbs,
					"resourceNames": rule.ResourceNames, "nonResourceURLs": rule.NonResourceURLs,
				} {
					if slices.Contains(values, "*") {
						add(o, "rule %d: %s has *", i, field)
					}
				}
				for _, res := range rule.Resources {
					if res == "secrets" || strings.HasPrefix(res, "secrets/") {
						add(o, "rule %d grants %s", i, res)
					}
				}
				for _, v := range rule.Verbs {
					if v != "*" && slices.Contains(dangerousVerbs, v) {
						add(o, "rule %d grants verb %s", i, v)
					}
				}
			}
		}
	}
	for _, o := range objs {
		switch o.Kind {
		case "RoleBinding", "ClusterRoleBinding":
			var b rbacv1.RoleBinding // a ClusterRoleBinding has the same fields
			if err := yaml.Unmarshal(o.raw, &b); err != nil {
				add(o, "%v", err)
				continue
			}
			ns := ""
			if b.RoleRef.Kind == "Role" {
				ns = o.Namespace
			}
			if !rendered[b.RoleRef.Kind+"/"+ns+"/"+b.RoleRef.Name] {
				add(o, "binds %s %s, which the chart does not render", b.RoleRef.Kind, b.RoleRef.Name)
			}
			for _, s := range b.Subjects {
				if s.Kind == rbacv1.ServiceAccountKind && s.Name == tunerSA {
					add(o, "binds the tuner's ServiceAccount")
				}
				if s.Kind != rbacv1.ServiceAccountKind {
					add(o, "binds %s %s", s.Kind, s.Name)
				}
			}
		case "ServiceAccount":
			var sa corev1.ServiceAccount
			if err := yaml.Unmarshal(o.raw, &sa); err != nil {
				add(o, "%v", err)
				continue
			}
			if sa.Name == tunerSA && (sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken) {
				add(o, "mounts a token")
			}
		}
	}
	return out
}

// TestRBACViolations shows the checker finds each kind of violation, so a
// chart that passes it does so for a reason.
func TestRBACViolations(t *testing.T) {
	role := func(kind, rules string) string {
		return "apiVersion: rbac.authorization.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: ns}\nrules:\n" + rules + "\n"
	}
	binding := func(kind, roleKind, roleName, subject string) string {
		return "apiVersion: rbac.authorization.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: b, namespace: ns}\n" +
			"roleRef: {apiGroup: rbac.authorization.k8s.io, kind: " + roleKind + ", name: " + roleName + "}\n" +
			"subjects: [" + subject + "]\n"
	}
	const manager = "{kind: ServiceAccount, name: manager, namespace: ns}"
	good := role("ClusterRole", "- {apiGroups: [''], resources: [pods], verbs: [get]}") + "---\n" +
		binding("ClusterRoleBinding", "ClusterRole", "r", manager)
	if v := rbacViolations(mustDecode(t, good)); len(v) != 0 {
		t.Fatalf("a least-privilege role and binding: got violations %q", v)
	}
	for _, tc := range []struct{ manifests, want string }{
		{role("ClusterRole", "- {apiGroups: [''], resources: [pods], verbs: ['*']}"), "verbs has *"},
		{role("Role", "- {apiGroups: [''], resources: ['*'], verbs: [get]}"), "resources has *"},
		{role("ClusterRole", "- {apiGroups: ['*'], resources: [pods], verbs: [get]}"), "apiGroups has *"},
		{role("ClusterRole", "- {nonResourceURLs: ['*'], verbs: [get]}"), "nonResourceURLs has *"},
		{role("ClusterRole", "- {apiGroups: [''], resources: [pods, secrets], verbs: [get]}"), "grants secrets"},
		{role("ClusterRole", "- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [escalate]}"), "grants verb escalate"},
		{role("ClusterRole", "- {apiGroups: [''], resources: [pods], verbs: [get]}\naggregationRule: {clusterRoleSelectors: [{matchLabels: {a: b}}]}"), "aggregates"},
		{good + "---\n" + binding("RoleBinding", "ClusterRole", "r", "{kind: ServiceAccount, name: benchwright-tuner, namespace: ns}"), "binds the tuner"},
		{binding("ClusterRoleBinding", "ClusterRole", "cluster-admin", manager), "binds ClusterRole cluster-admin, which the chart does not render"},
		{good + "---\n" + binding("ClusterRoleBinding", "ClusterRole", "r", "{kind: User, name: alice}"), "binds User alice"},
		{"apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: benchwright-tuner, namespace: ns}\n", "mounts a token"},
	} {
		v := rbacViolations(mustDecode(t, tc.manifests))
		if len(v) != 1 || !strings.Contains(v[0], tc.want) {
			t.Errorf("got violations %q, want one with %q in\n%s", v, tc.want, tc.manifests)
		}
	}
}

func mustDecode(t *testing.T, manifests string) []object {
	t.Helper()
	objs, err := decode(manifests)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// TestTunerWritesStayInTheReleaseNamespace: the manager's ClusterRole
// touches neither DaemonSets nor ConfigMaps (a benchmark's pods read their
// input from their own annotation); the tuners' DaemonSets and ConfigMaps are
// written through a Role of the release's namespace, bound to the manager.
func TestTunerWritesStayInTheReleaseNamespace(t *testing.T) {
	const ns = "hpc-ops"
	out, err := helm(t, "template", release, chartDir, "--namespace", ns, "-f", valuesFile(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decode(out)
	if err != nil {
		t.Fatal(err)
	}
	var cr rbacv1.ClusterRole
	find(t, objs, "ClusterRole", "benchwright-manager-role").into(t, &cr)
	for _, rule := range cr.Rules {
		for _, res := range rule.Resources {
			if res == "daemonsets" || res == "configmaps" {
				t.Errorf("the ClusterRole grants %v on %s in every namespace", rule.Verbs, res)
			}
		}
	}
	roleObj := find(t, objs, "Role", "benchwright-manager-role")
	var role rbacv1.Role
	roleObj.into(t, &role)
	writes := map[string][]string{}
	for _, rule := range role.Rules {
		for _, res := range rule.Resources {
			writes[res] = append(writes[res], rule.Verbs...)
		}
	}
	for _, res := range []string{"daemonsets", "configmaps"} {
		for _, v := range []string{"get", "list", "watch", "create", "patch", "delete"} {
			if !slices.Contains(writes[res], v) {
				t.Errorf("the Role of the release namespace lacks %s on %s: %v", v, res, writes)
			}
		}
	}
	var b rbacv1.RoleBinding
	bObj := find(t, objs, "RoleBinding", "benchwright-manager")
	bObj.into(t, &b)
	want := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "benchwright-manager", Namespace: ns}}
	if roleObj.Namespace != ns || bObj.Namespace != ns || b.RoleRef.Kind != "Role" || b.RoleRef.Name != role.Name || !slices.Equal(b.Subjects, want) {
		t.Errorf("Role in %q, RoleBinding in %q: %+v; want both in %q, binding the Role to %+v", roleObj.Namespace, bObj.Namespace, b, ns, want)
	}
}

// TestMetricsReader: the manager serves metrics over HTTPS to tokens allowed
// to get /metrics, which the chart's ClusterRole <name>-metrics-reader grants
// and nothing more (kubebuilder's scaffold); the Service names the scheme.
func TestMetricsReader(t *testing.T) {
	objs := render(t, "")
	var r rbacv1.ClusterRole
	find(t, objs, "ClusterRole", "benchwright-metrics-reader").into(t, &r)
	want := []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}
	if diff := cmp.Diff(want, r.Rules); diff != "" {
		t.Errorf("metrics-reader rules (-want +got):\n%s", diff)
	}
	var svc corev1.Service
	find(t, objs, "Service", "benchwright-manager").into(t, &svc)
	if p := svc.Spec.Ports[0]; p.Name != "https-metrics" || p.Port != 8080 || p.TargetPort.StrVal != "https-metrics" {
		t.Errorf("metrics port %+v, want https-metrics 8080", p)
	}
	var d appsv1.Deployment
	find(t, objs, "Deployment", "benchwright-manager").into(t, &d)
	for _, a := range d.Spec.Template.Spec.Containers[0].Args {
		if strings.HasPrefix(a, "--metrics-secure") {
			t.Errorf("the chart turns secure metrics off: %s", a)
		}
	}
}

// TestManagerReadsWorkflowsInTheCampaignsNamespaceOnly: with argo.enabled the
// manager may get Workflows (a campaign's pools and tunings name theirs) in
// argo.namespace and nowhere else, and may not list, watch or change them;
// without Argo no role names Workflows for it at all.
func TestManagerReadsWorkflowsInTheCampaignsNamespaceOnly(t *testing.T) {
	const ns, campaigns = "hpc-ops", "hpc-campaigns"
	manager := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "benchwright-manager", Namespace: ns}
	for _, tc := range []struct {
		values string
		want   []string // "namespace verbs" of each grant of workflows.argoproj.io to the manager
	}{
		{"", nil},
		{"argo: {enabled: true, namespace: " + campaigns + ", createNamespace: false}", []string{campaigns + " [get]"}},
	} {
		out, err := helm(t, "template", release, chartDir, "--namespace", ns, "-f", valuesFile(t, tc.values))
		if err != nil {
			t.Fatal(err)
		}
		objs, err := decode(out)
		if err != nil {
			t.Fatal(err)
		}
		rules := map[string][]rbacv1.PolicyRule{} // "Kind/namespace/name" of a role -> its rules
		for _, o := range objs {
			if o.Kind == "Role" || o.Kind == "ClusterRole" {
				var r rbacv1.ClusterRole
				o.into(t, &r)
				rules[o.Kind+"/"+o.Namespace+"/"+o.Name] = r.Rules
			}
		}
		var got []string
		for _, o := range objs {
			if o.Kind != "RoleBinding" && o.Kind != "ClusterRoleBinding" {
				continue
			}
			var b rbacv1.RoleBinding
			o.into(t, &b)
			if !slices.Contains(b.Subjects, manager) {
				continue
			}
			roleNS := ""
			if b.RoleRef.Kind == "Role" {
				roleNS = o.Namespace
			}
			for _, rule := range rules[b.RoleRef.Kind+"/"+roleNS+"/"+b.RoleRef.Name] {
				if slices.Contains(rule.APIGroups, "argoproj.io") || slices.ContainsFunc(rule.Resources, func(r string) bool { return strings.HasPrefix(r, "workflow") }) {
					if !slices.Equal(rule.APIGroups, []string{"argoproj.io"}) || !slices.Equal(rule.Resources, []string{"workflows"}) || len(rule.ResourceNames) > 0 {
						t.Errorf("%s: %s grants the manager %+v, want workflows.argoproj.io alone", tc.values, o, rule)
					}
					got = append(got, fmt.Sprintf("%s %v", o.Namespace, rule.Verbs))
				}
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("values %q: the manager's grants on Workflows %q, want %q", tc.values, got, tc.want)
		}
	}
}
