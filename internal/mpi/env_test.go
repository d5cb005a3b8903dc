package mpi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/yamldoc"
)

func TestEnvProblems(t *testing.T) {
	env := func(kv ...string) []benchv1.EnvVar {
		var out []benchv1.EnvVar
		for i := 0; i < len(kv); i += 2 {
			out = append(out, benchv1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		impl    benchv1.MPIImplementation
		version string
		env     []benchv1.EnvVar
		want    string // a problem's start; "" for none
	}{
		{"2018's shm:tcp on 2021", benchv1.IntelMPI, "2021.14", env("I_MPI_FABRICS", "shm:tcp"), `I_MPI_FABRICS="shm:tcp": Intel MPI 2021.14 accepts only`},
		{"2018's shm:tcp on 2018", benchv1.IntelMPI, "2018.4", env("I_MPI_FABRICS", "shm:tcp"), ""},
		{"unknown version", benchv1.IntelMPI, "", env("I_MPI_FABRICS", "shm:tcp"), ""},
		{"ofi over tcp", benchv1.IntelMPI, "2021.14", env("I_MPI_FABRICS", "shm:ofi", "FI_PROVIDER", "tcp"), ""},
		{"Intel's on Open MPI", benchv1.OpenMPI, "", env("I_MPI_FABRICS", "ofi"), "I_MPI_FABRICS is Intel MPI's: OpenMPI ignores it"},
		{"Open MPI's on MPICH", benchv1.MPICH, "", env("OMPI_MCA_btl", "tcp,self"), "OMPI_MCA_btl is Open MPI's"},
		{"MPICH's on Intel", benchv1.IntelMPI, "2021.14", env("MPIR_CVAR_CH4_NETMOD", "ofi"), "MPIR_CVAR_CH4_NETMOD is MPICH's"},
		{"own variables", benchv1.MPICH, "", env("FI_PROVIDER", "tcp", "MPIR_CVAR_ENABLE_GPU", "0"), ""},
	} {
		got := EnvProblems(tc.impl, tc.version, tc.env)
		if tc.want == "" && len(got) > 0 || tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// intelVersionRE is the Intel MPI version the shipped image installs.
var intelVersionRE = regexp.MustCompile(`(?m)^ARG INTEL_MPI_VERSION=(\S+)$`)

// Every MPIBenchmark of examples/, alone or in a campaign's benchmarks
// parameter, sets only MPI variables that the implementation and version
// of its image (the shipped one: images/) accept.
func TestExamplesMPIEnvFitTheirImages(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(here), "..", "..")
	dockerfile, err := os.ReadFile(filepath.Join(repo, "images", "mpi-intel", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := intelVersionRE.FindSubmatch(dockerfile)
	if m == nil {
		t.Fatal("images/mpi-intel/Dockerfile names no INTEL_MPI_VERSION")
	}
	versions := map[benchv1.MPIImplementation]string{benchv1.IntelMPI: string(m[1])}
	checked, intel := 0, 0
	check := func(where string, spec *benchv1.MPIBenchmarkSpec) {
		if spec.MPI.Image != "" {
			return // its own image: its version is unknown here
		}
		impl := spec.MPI.Implementation
		for _, p := range EnvProblems(impl, versions[impl], spec.MPI.Env) {
			t.Errorf("%s: %s", where, p)
		}
		checked++
		if impl == benchv1.IntelMPI {
			intel++
		}
	}
	err = filepath.WalkDir(filepath.Join(repo, "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		docs, err := yamldoc.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		for _, u := range docs {
			switch u.GetKind() {
			case "MPIBenchmark":
				var b benchv1.MPIBenchmark
				if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &b); err != nil {
					t.Fatalf("%s: %v", rel, err)
				}
				check(rel+": "+b.Name, &b.Spec)
			case "Workflow", "CronWorkflow":
				for _, b := range campaignMPIBenchmarks(t, rel, u.Object) {
					check(rel+": benchmark "+b.Name, &b.Spec)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("checked %d MPIBenchmarks of examples/ against images/ (%d with Intel MPI %s)", checked, intel, versions[benchv1.IntelMPI])
	if checked < 10 || intel < 5 {
		t.Errorf("checked %d MPIBenchmarks of examples/ (%d with Intel MPI): too few, the walk misses some", checked, intel)
	}
}

// campaignMPIBenchmarks are the MPIBenchmarks of a campaign Workflow's
// benchmarks parameter.
func campaignMPIBenchmarks(t *testing.T, where string, wf map[string]any) []benchv1.MPIBenchmark {
	t.Helper()
	spec, _ := wf["spec"].(map[string]any)
	if w, ok := spec["workflowSpec"].(map[string]any); ok { // a CronWorkflow
		spec = w
	}
	args, _ := spec["arguments"].(map[string]any)
	params, _ := args["parameters"].([]any)
	var out []benchv1.MPIBenchmark
	for _, p := range params {
		pm, _ := p.(map[string]any)
		if pm["name"] != "benchmarks" {
			continue
		}
		var cells []struct {
			Name string                   `json:"name"`
			Kind string                   `json:"kind"`
			Spec benchv1.MPIBenchmarkSpec `json:"spec"`
		}
		value, _ := pm["value"].(string)
		if err := json.Unmarshal([]byte(value), &cells); err != nil {
			t.Fatalf("%s: the benchmarks parameter: %v", where, err)
		}
		for _, c := range cells {
			if c.Kind == "MPIBenchmark" {
				b := benchv1.MPIBenchmark{Spec: c.Spec}
				b.Name = c.Name
				out = append(out, b)
			}
		}
	}
	return out
}
