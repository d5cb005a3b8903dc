package argo_test

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// examples are the campaigns in examples/campaigns.
func examples(t *testing.T) map[string]*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(util.RepoRoot(), "examples", "campaigns", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples/campaigns/*.yaml (%v)", err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, f := range files {
		rel, _ := filepath.Rel(util.RepoRoot(), f)
		out[rel] = readObject(t, rel)
	}
	return out
}

func workflowTemplate(t *testing.T, objs []*unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	wts := ofKind(objs, "WorkflowTemplate")
	if len(wts) != 1 {
		t.Fatalf("want one WorkflowTemplate, got %d", len(wts))
	}
	return wts[0]
}

// parameter is an Argo parameter (value nil: none).
type parameter struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

func parameters(t *testing.T, obj *unstructured.Unstructured) []parameter {
	t.Helper()
	raw, _, _ := unstructured.NestedSlice(obj.Object, "spec", "arguments", "parameters")
	data, _ := json.Marshal(raw)
	var out []parameter
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The template and the example Workflows are what the API server accepts
// (Argo's full schemas, unknown fields rejected).
func TestAcceptedByAPIServer(t *testing.T) {
	needArgo(t)
	ctx := context.Background()
	util.EnsureNamespace(ctx, t, k8sClient, campaigns)
	if err := k8sClient.Create(ctx, workflowTemplate(t, renderArgo(t)), client.FieldValidation("Strict")); err != nil {
		t.Fatalf("creating the WorkflowTemplate: %v", err)
	}
	for name, wf := range examples(t) {
		wf.SetNamespace(campaigns)
		if err := k8sClient.Create(ctx, wf, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Each example gives every parameter the template has no default for, and
// only parameters the template has (argo lint checks neither).
func TestExampleArguments(t *testing.T) {
	params := parameters(t, workflowTemplate(t, renderArgo(t)))
	for name, wf := range examples(t) {
		var given []string
		for _, p := range parameters(t, wf) {
			given = append(given, p.Name)
			if !slices.ContainsFunc(params, func(q parameter) bool { return q.Name == p.Name }) {
				t.Errorf("%s: the template has no parameter %q", name, p.Name)
			}
		}
		for _, p := range params {
			if p.Value == nil && !slices.Contains(given, p.Name) {
				t.Errorf("%s: parameter %q has no default and is not given", name, p.Name)
			}
		}
		if ref, _, _ := unstructured.NestedString(wf.Object, "spec", "workflowTemplateRef", "name"); ref != "benchwright-campaign" {
			t.Errorf("%s: workflowTemplateRef %q, want benchwright-campaign", name, ref)
		}
	}
}

// entry is an item of a matrix parameter.
type entry struct {
	Name string         `json:"name"`
	Kind string         `json:"kind"`
	Spec map[string]any `json:"spec"`
}

// The objects each example's cells create are valid: the template's
// expressions are mirrored here (poolDefaults fill what a pool spec leaves
// out, pool and tuning are set) and the objects pass a server-side dry run.
func TestExampleMatrices(t *testing.T) {
	needArgo(t)
	ctx := context.Background()
	util.EnsureNamespace(ctx, t, k8sClient, campaigns)
	defaults := map[string]string{}
	for _, p := range parameters(t, workflowTemplate(t, renderArgo(t))) {
		if p.Value != nil {
			defaults[p.Name] = *p.Value
		}
	}
	for name, wf := range examples(t) {
		args := maps.Clone(defaults)
		for _, p := range parameters(t, wf) {
			args[p.Name] = *p.Value
		}
		var pools, tunings, benchmarks []entry
		var poolDefaults map[string]any
		for param, into := range map[string]any{"pools": &pools, "tunings": &tunings, "benchmarks": &benchmarks, "poolDefaults": &poolDefaults} {
			if err := json.Unmarshal([]byte(args[param]), into); err != nil {
				t.Fatalf("%s: parameter %s: %v", name, param, err)
			}
		}
		// The Workflow's name: generateName and five characters.
		campaign := wf.GetGenerateName() + "x7k2p"
		for _, p := range pools {
			for _, tu := range tunings {
				id := campaign + "-" + p.Name + "-" + tu.Name
				if errs := validation.IsDNS1123Label(id); len(errs) > 0 {
					t.Errorf("%s: pool name %s: %v", name, id, errs)
				}
				objs := []*unstructured.Unstructured{object("BenchmarkPool", id, "", campaign, fill(p.Spec, poolDefaults))}
				placement := map[string]any{"pool": id}
				if tu.Name != "none" {
					objs = append(objs, object("TuningProfile", id, "", campaign, fill(map[string]any{"pool": id}, tu.Spec)))
					placement["tuning"] = id
				}
				for _, b := range benchmarks {
					objs = append(objs, object(b.Kind, id+"-"+b.Name, campaigns, campaign, fill(placement, b.Spec)))
				}
				for _, o := range objs {
					if err := k8sClient.Create(ctx, o, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
						t.Errorf("%s: %s %s: %v", name, o.GetKind(), o.GetName(), err)
					}
				}
			}
		}
	}
}

// Every object a step creates carries the campaign label, and the exit
// handler deletes the pools and tunings by it.
func TestCampaignLabel(t *testing.T) {
	var templates []struct {
		Name     string
		Resource *struct {
			Action   string
			Manifest string
			Flags    []string
		}
	}
	raw, _, _ := unstructured.NestedSlice(workflowTemplate(t, renderArgo(t)).Object, "spec", "templates")
	data, _ := json.Marshal(raw)
	if err := json.Unmarshal(data, &templates); err != nil {
		t.Fatal(err)
	}
	tag := regexp.MustCompile(`{{.*?}}`)
	created, releasedBy := 0, ""
	for _, tmpl := range templates {
		r := tmpl.Resource
		switch {
		case r == nil:
		case r.Action == "apply" || r.Action == "create":
			created++
			var obj struct {
				Metadata struct{ Labels map[string]string }
			}
			// Argo's tags are not YAML: stand-ins keep the rest readable.
			if err := yaml.Unmarshal([]byte(tag.ReplaceAllString(r.Manifest, "x")), &obj); err != nil {
				t.Fatalf("%s: %v", tmpl.Name, err)
			}
			if got := obj.Metadata.Labels[benchv1.CampaignLabel]; got != "x" {
				t.Errorf("%s: label %s = %q, want {{workflow.name}}", tmpl.Name, benchv1.CampaignLabel, got)
			}
		case r.Action == "delete" && slices.Contains(r.Flags, "--selector="+benchv1.CampaignLabel+"={{workflow.name}}"):
			releasedBy = tmpl.Name
		}
	}
	if created != 3 {
		t.Errorf("%d templates create objects, want 3 (pool, tuning, benchmark)", created)
	}
	if releasedBy == "" {
		t.Errorf("no template deletes by %s", benchv1.CampaignLabel)
	}
}

// The report step only uses flags benchwright report has.
func TestReportFlags(t *testing.T) {
	var report struct {
		Container struct{ Args []string }
	}
	raw, _, _ := unstructured.NestedSlice(workflowTemplate(t, renderArgo(t)).Object, "spec", "templates")
	for _, tmpl := range raw {
		if m := tmpl.(map[string]any); m["name"] == "report" {
			data, _ := json.Marshal(m)
			_ = json.Unmarshal(data, &report)
		}
	}
	if len(report.Container.Args) == 0 || report.Container.Args[0] != "report" {
		t.Fatalf("no report step running benchwright report: %v", report.Container.Args)
	}
	cmd := exec.Command("go", "run", "./cmd/benchwright", "report", "--help")
	cmd.Dir = util.RepoRoot()
	help, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("benchwright report --help: %v\n%s", err, help)
	}
	for _, arg := range report.Container.Args[1:] {
		flag, _, _ := strings.Cut(arg, "=")
		if !strings.Contains(string(help), flag+" ") {
			t.Errorf("benchwright report has no flag %s", flag)
		}
	}
}

// The campaign's ServiceAccount may do what the steps do, and no more.
func TestServiceAccountAccess(t *testing.T) {
	needArgo(t)
	ctx := context.Background()
	util.EnsureNamespace(ctx, t, k8sClient, namespace)
	util.EnsureNamespace(ctx, t, k8sClient, campaigns)
	for _, o := range renderArgo(t) {
		if o.GetKind() == "WorkflowTemplate" || o.GetKind() == "Secret" || o.GetKind() == "ConfigMap" {
			continue
		}
		if err := k8sClient.Create(ctx, o, client.FieldValidation("Strict")); err != nil {
			t.Fatalf("creating %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	type access struct {
		verb, group, resource, ns, name string
		allowed                         bool
	}
	const bw, proxy = "benchwright.io", "http:" + release + "-manager:artifacts"
	cases := []access{
		{"create", bw, "benchmarkpools", "", "", true},
		{"patch", bw, "benchmarkpools", "", "", true},
		{"list", bw, "benchmarkpools", "", "", true},
		{"delete", bw, "tuningprofiles", "", "", true},
		{"watch", bw, "tuningprofiles", "", "", true},
		{"create", bw, "storagebenchmarks", campaigns, "", true},
		{"get", bw, "mpibenchmarks", campaigns, "", true},
		{"list", bw, "mpibenchmarks", campaigns, "", true},
		{"create", bw, "networkbenchmarks", campaigns, "", true},
		{"get", bw, "networkbenchmarks", campaigns, "", true},
		{"create", bw, "campaignreports", campaigns, "s0-x7k2p", true},
		{"create", "argoproj.io", "workflowtaskresults", campaigns, "", true},
		{"patch", "argoproj.io", "workflowtaskresults", campaigns, "", true},
		// Not needed by any step: the report reads its runs from the
		// artifact server over TLS with its own token, not through the
		// service proxy (which the server's plain port no longer answers).
		{"get", "", "services/proxy", namespace, proxy, false},
		{"create", bw, "campaignreports", "default", "s0-x7k2p", false},
		{"create", bw, "storagebenchmarks", "default", "", false},
		{"update", bw, "benchmarkpools/status", "", "", false},
		{"get", "", "services/proxy", namespace, "http:kubernetes:443", false},
		{"get", "", "secrets", campaigns, "", false},
		{"create", "", "pods", campaigns, "", false},
		{"create", "argoproj.io", "workflows", campaigns, "", false},
		{"delete", "", "nodes", "", "", false},
		// Nothing in the manager's namespace, which allows privileged pods:
		// no benchmark there (whose host path would run as root beside the
		// tuner), no secret, no pod, no report.
		{"create", bw, "storagebenchmarks", namespace, "", false},
		{"create", bw, "campaignreports", namespace, "s0-x7k2p", false},
		{"get", "", "secrets", namespace, "", false},
		{"create", "", "pods", namespace, "", false},
		{"create", "argoproj.io", "workflowtaskresults", namespace, "", false},
	}
	for _, c := range cases {
		sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:" + campaigns + ":benchwright-campaign",
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + campaigns, "system:authenticated"},
			ResourceAttributes: &authzv1.ResourceAttributes{
				Verb: c.verb, Group: c.group, Resource: strings.Split(c.resource, "/")[0],
				Subresource: subresource(c.resource), Namespace: c.ns, Name: c.name,
			},
		}}
		if err := k8sClient.Create(ctx, sar); err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed != c.allowed {
			t.Errorf("%s %s %s (namespace %q, name %q): allowed %v, want %v", c.verb, c.group, c.resource, c.ns, c.name, sar.Status.Allowed, c.allowed)
		}
	}
}

func subresource(resource string) string {
	_, sub, _ := strings.Cut(resource, "/")
	return sub
}

// object is a benchwright object of the campaign.
func object(kind, name, ns, campaign string, spec map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	o.SetAPIVersion(benchv1.GroupVersion.String())
	o.SetKind(kind)
	o.SetName(name)
	o.SetNamespace(ns)
	o.SetLabels(map[string]string{benchv1.CampaignLabel: campaign})
	return o
}

// fill is sprig's merge, as the template uses it: dst keeps its values,
// src fills the keys dst lacks or holds a zero value in, maps recursively.
func fill(dst, src map[string]any) map[string]any {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range src {
		d, ok := out[k]
		dm, dIsMap := d.(map[string]any)
		sm, sIsMap := v.(map[string]any)
		switch {
		case dIsMap && sIsMap:
			out[k] = fill(dm, sm)
		case !ok || d == nil || d == false || d == 0.0 || d == "":
			out[k] = v
		}
	}
	return out
}

// What a real workflow-controller showed (make test-real-argo): the steps'
// pods must tolerate the pools' taint (on a cluster where every node is in a
// pool nothing else can run them) and prefer other nodes; argoexec's
// containers need a numeric user under runAsNonRoot; no step may wait forever
// (a report whose pod cannot start kept a campaign Running), and kubectl's
// deletes wait for finalizers only so long.
func TestStepsRunAnywhereAndEnd(t *testing.T) {
	wt := workflowTemplate(t, renderArgo(t))
	var spec struct {
		SecurityContext struct {
			RunAsNonRoot *bool  `json:"runAsNonRoot"`
			RunAsUser    *int64 `json:"runAsUser"`
		} `json:"securityContext"`
		Tolerations []struct{ Key, Operator, Effect string } `json:"tolerations"`
		Affinity    struct {
			NodeAffinity struct {
				Preferred []struct {
					Preference struct {
						MatchExpressions []struct{ Key, Operator string } `json:"matchExpressions"`
					} `json:"preference"`
				} `json:"preferredDuringSchedulingIgnoredDuringExecution"`
			} `json:"nodeAffinity"`
		} `json:"affinity"`
		Templates []struct {
			Name                  string `json:"name"`
			ActiveDeadlineSeconds any    `json:"activeDeadlineSeconds"`
			Steps                 any    `json:"steps"`
			Resource              *struct {
				Action string   `json:"action"`
				Flags  []string `json:"flags"`
			} `json:"resource"`
		} `json:"templates"`
	}
	data, _ := json.Marshal(wt.Object["spec"])
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	if sc := spec.SecurityContext; sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Errorf("securityContext: want runAsNonRoot with a non-root runAsUser (argoexec's init and wait containers), got %s", data)
	}
	tolerated := slices.ContainsFunc(spec.Tolerations, func(tol struct{ Key, Operator, Effect string }) bool {
		return tol.Key == benchv1.PoolLabel && tol.Operator == "Exists" && tol.Effect == "NoSchedule"
	})
	if !tolerated {
		t.Errorf("tolerations %+v: the steps do not tolerate %s (NoSchedule, any pool)", spec.Tolerations, benchv1.PoolLabel)
	}
	avoids := false
	for _, p := range spec.Affinity.NodeAffinity.Preferred {
		for _, e := range p.Preference.MatchExpressions {
			avoids = avoids || (e.Key == benchv1.PoolLabel && e.Operator == "DoesNotExist")
		}
	}
	if !avoids {
		t.Errorf("the steps do not prefer nodes outside pools (nodeAffinity %s DoesNotExist)", benchv1.PoolLabel)
	}
	for _, tmpl := range spec.Templates {
		if tmpl.Steps != nil {
			continue
		}
		if tmpl.ActiveDeadlineSeconds == nil {
			t.Errorf("template %s has no activeDeadlineSeconds", tmpl.Name)
		}
		if r := tmpl.Resource; r != nil && r.Action == "delete" &&
			!slices.ContainsFunc(r.Flags, func(f string) bool { return strings.HasPrefix(f, "--timeout=") }) {
			t.Errorf("template %s: kubectl delete %v without --timeout", tmpl.Name, r.Flags)
		}
	}
}
