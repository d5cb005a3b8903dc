package argo_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaign"
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
	// A CronWorkflow's Workflows, as it makes them: its workflowSpec, named
	// after it.
	for rel, cron := range cronExamples(t) {
		spec, _, _ := unstructured.NestedMap(cron.Object, "spec", "workflowSpec")
		wf := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		wf.SetAPIVersion("argoproj.io/v1alpha1")
		wf.SetKind("Workflow")
		wf.SetGenerateName(cron.GetName() + "-")
		out[rel] = wf
	}
	return out
}

// cronExamples are examples/cron/*.yaml: campaigns on a schedule.
func cronExamples(t *testing.T) map[string]*unstructured.Unstructured {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(util.RepoRoot(), "examples", "cron", "*.yaml"))
	out := map[string]*unstructured.Unstructured{}
	for _, f := range files {
		rel, _ := filepath.Rel(util.RepoRoot(), f)
		if out[rel] = readObject(t, rel); out[rel].GetKind() != "CronWorkflow" {
			t.Fatalf("%s is a %s, want a CronWorkflow", rel, out[rel].GetKind())
		}
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
	crons := cronExamples(t)
	if len(crons) == 0 {
		t.Error("no examples/cron/*.yaml")
	}
	for name, cron := range crons {
		cron.SetNamespace(campaigns)
		if err := k8sClient.Create(ctx, cron, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
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

// The objects each example's cells create are valid: `benchwright campaign
// check` (what the campaign's first step runs) passes on the example's
// arguments, every object dry-run by the API server.
func TestExampleMatrices(t *testing.T) {
	needArgo(t)
	ctx := context.Background()
	util.EnsureNamespace(ctx, t, k8sClient, campaigns)
	for name, wf := range examples(t) {
		m := exampleMatrix(t, name, wf)
		// The Workflow's name: generateName and five characters.
		w := campaign.Workflow{Namespace: campaigns, Name: wf.GetGenerateName() + "x7k2p", UID: "c0ffee"}
		if err := campaign.Check(ctx, k8sClient, m, w); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// exampleMatrix is the matrix an example's arguments (and the template's
// defaults) give.
func exampleMatrix(t *testing.T, name string, wf *unstructured.Unstructured) *campaign.Matrix {
	t.Helper()
	args := map[string]string{}
	for _, p := range parameters(t, workflowTemplate(t, renderArgo(t))) {
		if p.Value != nil {
			args[p.Name] = *p.Value
		}
	}
	for _, p := range parameters(t, wf) {
		args[p.Name] = *p.Value
	}
	m, err := campaign.Parse(campaign.Params{Pools: args["pools"], PoolDefaults: args["poolDefaults"],
		Tunings: args["tunings"], Benchmarks: args["benchmarks"], SharePool: args["sharePool"], Baselines: args["baselines"]})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// A bad matrix fails the check step, naming the parameter, the item and the
// field in the API server's words, before any object exists.
func TestCheckNamesTheFault(t *testing.T) {
	needArgo(t)
	ctx := context.Background()
	util.EnsureNamespace(ctx, t, k8sClient, campaigns)
	w := campaign.Workflow{Namespace: campaigns, Name: "bad-x7k2p", UID: "c0ffee"}
	for _, tc := range []struct {
		name   string
		params campaign.Params
		want   []string
	}{
		{"invalid benchmark spec", campaign.Params{Pools: `[{"name": "a", "spec": {"provider": "existing", "existing": {"nodeSelector": {"k": "v"}}}}]`,
			Benchmarks: `[{"name": "fio", "kind": "StorageBenchmark", "spec": {"repetitions": 0, "volumes": {"emptyDir": {}}, "fio": {"jobs": [{"name": "j", "rw": "randread"}]}}}]`},
			[]string{`parameter benchmarks[0] ("fio")`, "spec.repetitions"}},
		{"unknown field", campaign.Params{Pools: `[{"name": "a", "spec": {"provider": "existing", "existing": {"nodeSelector": {"k": "v"}}, "nodeCuont": 2}}]`,
			Benchmarks: `[{"name": "fio", "kind": "StorageBenchmark", "spec": {"volumes": {"emptyDir": {}}, "fio": {"jobs": [{"name": "j", "rw": "randread"}]}}}]`},
			[]string{`parameter pools[0] ("a")`, `unknown field "spec.nodeCuont"`}},
		{"name too long", campaign.Params{Pools: `[{"name": "` + strings.Repeat("p", 40) + `"}]`, Tunings: `[{"name": "` + strings.Repeat("t", 30) + `"}]`,
			Benchmarks: `[{"name": "fio", "kind": "StorageBenchmark"}]`},
			[]string{"pool name bad-x7k2p-ppp", "shorten"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := campaign.Parse(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			err = campaign.Check(ctx, k8sClient, m, w)
			for _, want := range tc.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Check: %v; want %q", err, want)
				}
			}
			var pools benchv1.BenchmarkPoolList
			if err := k8sClient.List(ctx, &pools, client.MatchingLabels{benchv1.CampaignLabel: w.Name}); err != nil || len(pools.Items) > 0 {
				t.Errorf("the check made pools: %d (%v)", len(pools.Items), err)
			}
		})
	}
}

// Every step but the report runs `benchwright campaign` from the manager's
// image, given the Workflow and the matrix as whole arguments: argv only, a
// parameter is never pasted into YAML, a manifest or a shell line.
func TestStepsAreBenchwrightCampaign(t *testing.T) {
	whole := regexp.MustCompile(`^--[a-z-]+=\{\{[a-zA-Z.]+\}\}$`)
	steps := map[string]bool{}
	for _, tm := range templates(t) {
		if tm.Resource != nil {
			t.Errorf("%s: a resource template (kubectl with a manifest built from parameters)", tm.Name)
		}
		c := tm.Container
		if c == nil || tm.Name == "report" {
			continue
		}
		if c.Image != "ghcr.io/benchwright/manager:v0.1.0" || !slices.Equal(c.Command, []string{"/benchwright"}) || len(c.Args) < 2 || c.Args[0] != "campaign" {
			t.Errorf("%s: runs %s %v %v, want the manager image's /benchwright campaign", tm.Name, c.Image, c.Command, c.Args)
			continue
		}
		steps[c.Args[1]] = true
		for _, want := range []string{"--workflow={{workflow.name}}", "--workflow-uid={{workflow.uid}}", "--namespace={{workflow.namespace}}", "--pools={{workflow.parameters.pools}}", "--baselines={{workflow.parameters.baselines}}"} {
			if !slices.Contains(c.Args, want) {
				t.Errorf("%s: args lack %s", tm.Name, want)
			}
		}
		for _, arg := range c.Args {
			if strings.Contains(arg, "{{") && !whole.MatchString(arg) {
				t.Errorf("%s: arg %q is not one whole --flag={{value}}", tm.Name, arg)
			}
		}
		if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s: securityContext %+v", tm.Name, sc)
		}
	}
	for _, sub := range []string{"check", "cell", "release"} {
		if !steps[sub] {
			t.Errorf("no step runs benchwright campaign %s", sub)
		}
	}
	// The flags exist.
	for _, sub := range []string{"check", "cell", "release"} {
		cmd := exec.Command("go", "run", "./cmd/benchwright", "campaign", sub, "--help")
		cmd.Dir = util.RepoRoot()
		help, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("benchwright campaign %s --help: %v\n%s", sub, err, help)
		}
		for _, tm := range templates(t) {
			if c := tm.Container; c != nil && len(c.Args) > 1 && c.Args[0] == "campaign" && c.Args[1] == sub {
				for _, arg := range c.Args[2:] {
					flag, _, _ := strings.Cut(arg, "=")
					if !strings.Contains(string(help), flag+" ") {
						t.Errorf("%s: benchwright campaign %s has no flag %s", tm.Name, sub, flag)
					}
				}
			}
		}
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
