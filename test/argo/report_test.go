package argo_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/benchwright/benchwright/internal/artifactserver"
)

// template is one template of the WorkflowTemplate, as far as these tests read it.
type template struct {
	Name      string
	Container *corev1.Container
	Volumes   []corev1.Volume
	Resource  *struct{ Manifest string }
}

func templates(t *testing.T) []template {
	t.Helper()
	raw, _, _ := unstructured.NestedSlice(workflowTemplate(t, renderArgo(t)).Object, "spec", "templates")
	data, _ := json.Marshal(raw)
	var out []template
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The report step's image, server and manager are the chart's: no workflow
// parameter (which a submitter sets) reaches them. It publishes with a
// projected token of the artifact server's audience, trusting the chart's CA.
func TestReportStepIsTheCharts(t *testing.T) {
	for _, p := range parameters(t, workflowTemplate(t, renderArgo(t))) {
		if slices.Contains([]string{"reportServer", "image", "manager"}, p.Name) {
			t.Errorf("parameter %q: a submitter could override it", p.Name)
		}
	}
	i := slices.IndexFunc(templates(t), func(tm template) bool { return tm.Name == "report" })
	if i < 0 {
		t.Fatal("no report template")
	}
	report := templates(t)[i]
	c := report.Container
	if c.Image != "ghcr.io/benchwright/manager:v0.1.0" {
		t.Errorf("report image %q, want the chart's manager image", c.Image)
	}
	for _, arg := range c.Args {
		// The title, how the comparison divides (which the CLI checks) and
		// the matrix (whose failed cells it lists) are the submitter's;
		// nothing else.
		if strings.Contains(arg, "{{") && !strings.HasPrefix(arg, "--title=") && !strings.HasPrefix(arg, "--ratio=") && !strings.HasPrefix(arg, "--campaign-") && !strings.Contains(arg, "{{workflow.name}}") && !strings.Contains(arg, "{{workflow.namespace}}") {
			t.Errorf("report arg %q is templated", arg)
		}
	}
	const dir = "/var/run/secrets/benchwright/publish"
	for _, want := range []string{
		"--server=https://" + release + "-manager." + namespace + ".svc:8443",
		"--manager=" + namespace + "/" + release + "-manager",
		"--token-file=" + dir + "/token",
		"--ca-file=" + dir + "/ca.crt",
		// The campaign's order and baselines: the report compares along its dimensions.
		"--campaign-pools={{workflow.parameters.pools}}",
		"--campaign-baselines={{workflow.parameters.baselines}}",
	} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("report args %q lack %q", c.Args, want)
		}
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != dir || len(report.Volumes) != 1 || report.Volumes[0].Name != c.VolumeMounts[0].Name {
		t.Fatalf("report mounts %+v of volumes %+v, want one at %s", c.VolumeMounts, report.Volumes, dir)
	}
	var token *corev1.ServiceAccountTokenProjection
	var ca *corev1.ConfigMapProjection
	for _, src := range report.Volumes[0].Projected.Sources {
		if src.ServiceAccountToken != nil {
			token = src.ServiceAccountToken
		}
		if src.Secret != nil {
			t.Errorf("the report mounts Secret %s: the campaigns' namespace has the CA only, in a ConfigMap", src.Secret.Name)
		}
		if src.ConfigMap != nil {
			ca = src.ConfigMap
		}
	}
	if token == nil || token.Audience != artifactserver.TokenAudience || token.Path != "token" {
		t.Errorf("projected token %+v, want audience %s at token", token, artifactserver.TokenAudience)
	}
	if ca == nil || ca.Name != release+"-artifact-server-ca" || len(ca.Items) != 1 || ca.Items[0].Key != "ca.crt" {
		t.Errorf("projected ConfigMap %+v, want ca.crt of %s-artifact-server-ca", ca, release)
	}
}
