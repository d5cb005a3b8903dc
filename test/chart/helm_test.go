package chart_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/benchwright/benchwright/test/util"
)

const (
	release   = "benchwright"
	namespace = "benchwright-system"
)

var chartDir = filepath.Join(util.RepoRoot(), "charts", "benchwright")

// helm runs the helm binary in the repository root and returns its stdout;
// the error holds its stderr.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin, err := util.Helm()
	if err != nil {
		t.Fatalf("finding helm (set HELM to skip the build): %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = util.RepoRoot()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// valuesFile writes values (YAML) to a file for helm -f (which splits its
// argument at commas, so the name holds none, unlike t.TempDir's).
func valuesFile(t *testing.T, values string) string {
	t.Helper()
	f, err := os.CreateTemp("", "benchwright-values-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(f.Name()) })
	if _, err := f.WriteString(values); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// template renders chart with values (YAML, may be empty).
func template(t *testing.T, chart, values string) ([]object, error) {
	t.Helper()
	out, err := helm(t, "template", release, chart, "--namespace", namespace, "-f", valuesFile(t, values))
	if err != nil {
		return nil, err
	}
	return decode(out)
}

// render renders the chart with values and fails the test on an error.
func render(t *testing.T, values string) []object {
	t.Helper()
	objs, err := template(t, chartDir, values)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// object is one rendered manifest.
type object struct {
	Kind, Name, Namespace string
	raw                   []byte         // the manifest (YAML)
	fields                map[string]any // the manifest, decoded
}

func (o object) String() string { return o.Kind + "/" + o.Name }

// into decodes the manifest into a typed object, rejecting unknown fields
// (so a misspelt field in a template fails).
func (o object) into(t *testing.T, v any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(o.raw, v); err != nil {
		t.Fatalf("decoding %s: %v\n%s", o, err, o.raw)
	}
}

// decode splits helm's output into its manifests, skipping empty ones.
// Unlike internal/yamldoc.Decode it keeps each raw document: into decodes
// that strictly, which also rejects a key a template emits twice.
func decode(manifests string) ([]object, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifests)))
	var objs []object
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		var fields map[string]any
		if err := yaml.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("%w in\n%s", err, raw)
		}
		if fields == nil {
			continue
		}
		meta, _ := fields["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		ns, _ := meta["namespace"].(string)
		kind, _ := fields["kind"].(string)
		objs = append(objs, object{Kind: kind, Name: name, Namespace: ns, raw: raw, fields: fields})
	}
}

// ofKind returns the objects of kind.
func ofKind(objs []object, kind string) []object {
	var out []object
	for _, o := range objs {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

// find returns the object of kind and name, failing the test if there is none.
func find(t *testing.T, objs []object, kind, name string) object {
	t.Helper()
	for _, o := range objs {
		if o.Kind == kind && o.Name == name {
			return o
		}
	}
	t.Fatalf("no %s/%s rendered; got %v", kind, name, objs)
	return object{}
}

// readYAML decodes a repository file.
func readYAML(t *testing.T, rel string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(util.RepoRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}
