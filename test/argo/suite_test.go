// Package argo_test checks the chart's Argo campaign template, its RBAC and
// the example campaigns against a real kube-apiserver (envtest) with Argo's
// own CRDs. hack/argo-lint.sh runs argo lint on the same files.
package argo_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/yamldoc"
	"github.com/benchwright/benchwright/test/util"
)

const (
	release   = "benchwright"
	namespace = "benchwright-system"
	// campaigns is where the chart puts the WorkflowTemplate, its account
	// and the campaigns' benchmarks (argo.namespace's default).
	campaigns = "benchwright-campaigns"
)

var (
	k8sClient client.Client
	// skip says why the tests cannot run (no Argo CRDs), or is empty.
	skip string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	crds, err := argoCRDs()
	if err != nil {
		skip = err.Error()
		return m.Run()
	}
	if err := util.SetEnvtestAssets(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := benchv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{util.CRDDir()}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting envtest: %v\n", err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	if k8sClient, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintf(os.Stderr, "creating client: %v\n", err)
		return 1
	}
	if err := installArgoCRDs(context.Background(), crds); err != nil {
		fmt.Fprintf(os.Stderr, "installing Argo's CRDs from %s: %v\n", crds, err)
		return 1
	}
	return m.Run()
}

// argoCRDs is the directory of Argo's CRDs: $ARGO_CRDS, else the full CRDs of
// the argo-workflows module that hack/cluster-tools.sh fetched.
func argoCRDs() (string, error) {
	if dir := os.Getenv("ARGO_CRDS"); dir != "" {
		return dir, nil
	}
	mod, err := util.ArgoModule()
	if err != nil {
		return "", fmt.Errorf("no Argo CRDs: set ARGO_CRDS to the CRD directory of argo-workflows, or %w", err)
	}
	return filepath.Join(mod, "manifests", "base", "crds", "full"), nil
}

// installArgoCRDs creates Argo's full CRDs (with the whole schema) of
// Workflows and WorkflowTemplates. As generated they are not structural, which
// is why Argo installs "minimal" ones: here the inline templates get an open
// object schema, and the steps of a step group the schema of a DAG task, which
// has every field of a step (and two more).
func installArgoCRDs(ctx context.Context, dir string) error {
	for _, kind := range []string{"workflows", "workflowtemplates", "cronworkflows"} {
		data, err := os.ReadFile(filepath.Join(dir, "argoproj.io_"+kind+".yaml"))
		if err != nil {
			return err
		}
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &crd.Object); err != nil {
			return err
		}
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		for _, v := range versions {
			if schema, ok, _ := unstructured.NestedMap(v.(map[string]any), "schema", "openAPIV3Schema"); ok {
				repairSchema(schema)
				_ = unstructured.SetNestedMap(v.(map[string]any), schema, "schema", "openAPIV3Schema")
			}
		}
		_ = unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")
		if err := k8sClient.Create(ctx, crd); err != nil {
			return err
		}
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, c := range conds {
				if c := c.(map[string]any); c["type"] == "Established" && c["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		}); err != nil {
			return fmt.Errorf("%s not established: %w", crd.GetName(), err)
		}
	}
	return nil
}

// repairSchema makes Argo's generated schema structural (see installArgoCRDs).
func repairSchema(schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	if inline, ok := props["inline"].(map[string]any); ok && len(inline) == 0 {
		props["inline"] = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	}
	if group, ok, _ := unstructured.NestedMap(props, "steps", "items"); ok && group["items"] == nil {
		if task, ok, _ := unstructured.NestedMap(props, "dag", "properties", "tasks", "items"); ok {
			group["items"] = task
			_ = unstructured.SetNestedMap(props, group, "steps", "items")
		}
	}
	for _, p := range props {
		if p, ok := p.(map[string]any); ok {
			repairSchema(p)
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := schema[key].(map[string]any); ok {
			repairSchema(sub)
		}
	}
}

func needArgo(t *testing.T) {
	t.Helper()
	if skip != "" {
		t.Skip(skip)
	}
}

// renderArgo renders the chart's Argo templates with argo.enabled.
func renderArgo(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	helm, err := util.Helm()
	if err != nil {
		t.Fatalf("finding helm (set HELM to skip the build): %v", err)
	}
	cmd := exec.Command(helm, "template", release, filepath.Join(util.RepoRoot(), "charts", "benchwright"),
		"--namespace", namespace, "--set", "argo.enabled=true",
		"--show-only", "templates/argo/workflowtemplate.yaml", "--show-only", "templates/argo/rbac.yaml",
		"--show-only", "templates/artifact-server-tls.yaml")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr.String())
	}
	objs, err := yamldoc.Decode(out)
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	return objs
}

// readObject decodes a repository file holding one object.
func readObject(t *testing.T, rel string) *unstructured.Unstructured {
	t.Helper()
	objs, err := yamldoc.ReadFile(filepath.Join(util.RepoRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%s: want one object, got %d", rel, len(objs))
	}
	return objs[0]
}

func ofKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}
