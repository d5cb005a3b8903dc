package validation

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/benchwright/benchwright/test/specs"
)

func validator(t *testing.T) *Validator {
	t.Helper()
	v, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAgreesWithTheAPIServer feeds the integration test's table to the
// offline validator: every case the API server refuses is refused with the
// same message, and every base the API server accepts is accepted.
func TestAgreesWithTheAPIServer(t *testing.T) {
	v := validator(t)
	if len(specs.Invalid) < 30 {
		t.Fatalf("only %d invalid cases", len(specs.Invalid))
	}
	for i, tc := range specs.Invalid {
		t.Run(tc.Name, func(t *testing.T) {
			errs := v.Validate(context.Background(), specs.Object(t, tc.Kind, fmt.Sprintf("invalid-%d", i), "", tc.Spec))
			if len(errs) == 0 {
				t.Fatalf("accepted; want rejection with %q", tc.Want)
			}
			if got := errs.ToAggregate().Error(); !strings.Contains(got, tc.Want) {
				t.Errorf("message does not say what to fix:\n got: %v\nwant: %q", got, tc.Want)
			}
		})
	}
	for kind, spec := range specs.Bases {
		if errs := v.Validate(context.Background(), specs.Object(t, kind, "base-"+strings.ToLower(kind), "", spec)); len(errs) > 0 {
			t.Errorf("%s: %v", kind, errs.ToAggregate())
		}
	}
}

func TestKnowsEveryKind(t *testing.T) {
	got := strings.Join(validator(t).Kinds(), ",")
	if want := "BenchmarkPool,MPIBenchmark,NetworkBenchmark,StorageBenchmark,TuningProfile"; got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
}

// The cases of issue 18, which the local run used to accept.
func TestIssue18(t *testing.T) {
	v := validator(t)
	for _, tc := range []struct {
		name, kind, spec, want string
	}{
		{"negative repetitions", "StorageBenchmark", specs.StorageSpec + "repetitions: -2\n",
			"spec.repetitions: Invalid value: -2: spec.repetitions in body should be greater than or equal to 1"},
		{"messageSizes.max 0", "MPIBenchmark", specs.MPISpec + "messageSizes: {max: 0}\n",
			"spec.messageSizes.max: Invalid value: 0: spec.messageSizes.max in body should be greater than or equal to 1"},
		{"osu_latency with 3 ranks on a node", "MPIBenchmark", strings.Replace(specs.MPISpec,
			"layout: {nodes: 2, ranksPerNode: 1}", "layout: {nodes: 1, ranksPerNode: 3}", 1),
			"need exactly 2 ranks in total"},
		{"blocksize in the wrong case", "StorageBenchmark", strings.Replace(specs.StorageSpec,
			"rw: randread}", "rw: randread, blocksize: 4k}", 1),
			`spec.fio.jobs[0].blocksize: Forbidden: unknown field "spec.fio.jobs[0].blocksize"`},
		{"unknown top-level field", "NetworkBenchmark", specs.NetworkSpec + "repetition: 3\n",
			`unknown field "spec.repetition"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := v.Validate(context.Background(), specs.Object(t, tc.kind, "x", "", tc.spec))
			if got := Format(errs); !strings.Contains(got, tc.want) {
				t.Errorf("got:\n%s\nwant a line with %q", got, tc.want)
			}
		})
	}
}

func TestMetadataName(t *testing.T) {
	errs := validator(t).Validate(context.Background(), specs.Object(t, "StorageBenchmark", "My_Bench", "", specs.StorageSpec))
	if got := Format(errs); !strings.Contains(got, `metadata.name: Invalid value: "My_Bench"`) {
		t.Errorf("got %q", got)
	}
}

func TestUnknownKindAndMetadataField(t *testing.T) {
	v := validator(t)
	obj := specs.Object(t, "Widget", "x", "", "{}")
	if got := Format(v.Validate(context.Background(), obj)); !strings.Contains(got, `kind: Unsupported value: "Widget"`) {
		t.Errorf("got %q", got)
	}
	obj = specs.Object(t, "StorageBenchmark", "x", "", specs.StorageSpec)
	obj.Object["metadata"].(map[string]any)["lables"] = map[string]any{"a": "b"}
	if got := Format(v.Validate(context.Background(), obj)); !strings.Contains(got, `unknown field "metadata.lables"`) {
		t.Errorf("got %q", got)
	}
}

func TestDefaults(t *testing.T) {
	obj := specs.Object(t, "StorageBenchmark", "x", "", specs.StorageSpec)
	if errs := validator(t).Validate(context.Background(), obj); len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	if obj.GetNamespace() != "" {
		t.Errorf("namespace %q left set", obj.GetNamespace())
	}
	for path, want := range map[string]int64{"spec.repetitions": 1, "spec.nodes": 1} {
		got, found, _ := unstructured.NestedInt64(obj.Object, strings.Split(path, ".")...)
		if !found || got != want {
			t.Errorf("%s = %v (found %v), want %d", path, got, found, want)
		}
	}
}
