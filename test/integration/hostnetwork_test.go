package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/mpibenchmark"
	"github.com/benchwright/benchwright/controllers/networkbenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/test/util"
)

// TestHostNetworkNeedsTheAdmin: a benchmark on the nodes' network fails
// InvalidSpec, creating nothing, unless the manager runs with
// --allow-host-network; then its pods get the nodes' network.
func TestHostNetworkNeedsTheAdmin(t *testing.T) {
	type kindCase struct {
		kind, field string
		// setup starts the kind's controller with the admin's choice.
		setup func(allowed bool) func(ctrl.Manager, *artifacts.Store) error
		spec  string
		obj   func() client.Object
		// hostNetwork lists the children and reports their pods' hostNetwork.
		hostNetwork func(ns string) ([]bool, error)
		common      func(client.Object) *benchv1.BenchmarkStatusCommon
	}
	kinds := []kindCase{
		{
			kind:  "MPIBenchmark",
			field: "spec.layout.hostNetwork",
			setup: func(allowed bool) func(ctrl.Manager, *artifacts.Store) error {
				return func(mgr ctrl.Manager, store *artifacts.Store) error {
					return (&mpibenchmark.Reconciler{
						Env:              benchrun.NewEnv(mgr, "mpibenchmark-controller", noLogs{}, store),
						Images:           map[benchv1.MPIImplementation]string{benchv1.OpenMPI: "registry.example/mpi-openmpi:test"},
						AllowHostNetwork: allowed,
					}).SetupWithManager(mgr)
				}
			},
			spec: `
nodeSelector: {kubernetes.io/os: linux}
suite: osu
tests: [osu_bw]
layout: {nodes: 1, ranksPerNode: 2, hostNetwork: true}
mpi: {implementation: OpenMPI}
`,
			obj: func() client.Object { return &benchv1.MPIBenchmark{} },
			hostNetwork: func(ns string) ([]bool, error) {
				var jobs mpiv2.MPIJobList
				err := k8sClient.List(context.Background(), &jobs, client.InNamespace(ns))
				var got []bool
				for _, j := range jobs.Items {
					for _, r := range j.Spec.MPIReplicaSpecs {
						got = append(got, r.Template.Spec.HostNetwork)
					}
				}
				return got, err
			},
			common: func(o client.Object) *benchv1.BenchmarkStatusCommon {
				return &o.(*benchv1.MPIBenchmark).Status.BenchmarkStatusCommon
			},
		},
		{
			kind:  "NetworkBenchmark",
			field: "spec.hostNetwork",
			setup: func(allowed bool) func(ctrl.Manager, *artifacts.Store) error {
				return func(mgr ctrl.Manager, store *artifacts.Store) error {
					return (&networkbenchmark.Reconciler{
						Env:   benchrun.NewEnv(mgr, "networkbenchmark-controller", noLogs{}, store),
						Image: "registry.example/mpi:test", AllowHostNetwork: allowed,
					}).SetupWithManager(mgr)
				}
			},
			spec: `
nodeSelector: {kubernetes.io/os: linux}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}
fabtests: {tests: [fi_msg_bw], provider: tcp}
hostNetwork: true
`,
			obj: func() client.Object { return &benchv1.NetworkBenchmark{} },
			hostNetwork: func(ns string) ([]bool, error) {
				var jobs batchv1.JobList
				err := k8sClient.List(context.Background(), &jobs, client.InNamespace(ns))
				var got []bool
				for _, j := range jobs.Items {
					got = append(got, j.Spec.Template.Spec.HostNetwork)
				}
				return got, err
			},
			common: func(o client.Object) *benchv1.BenchmarkStatusCommon {
				return &o.(*benchv1.NetworkBenchmark).Status.BenchmarkStatusCommon
			},
		},
	}
	for _, k := range kinds {
		for _, allowed := range []bool{false, true} {
			sub := k.kind + "/refused"
			if allowed {
				sub = k.kind + "/allowed"
			}
			t.Run(sub, func(t *testing.T) {
				ns := testNamespace(t, "hn-")
				startController(t, ns, k.setup(allowed), noStandIn)
				b := k.obj()
				if err := yaml.UnmarshalStrict([]byte("spec:"+strings.ReplaceAll(k.spec, "\n", "\n  ")), b); err != nil {
					t.Fatal(err)
				}
				b.SetName("hostnet")
				b.SetNamespace(ns)
				if err := k8sClient.Create(context.Background(), b); err != nil {
					t.Fatal(err)
				}
				if allowed {
					waitHostNetworkChildren(t, k.hostNetwork, ns)
					return
				}
				c := waitFailed(t, b, k.common)
				for _, want := range []string{k.field, "allowHostNetwork", "--allow-host-network", "admin"} {
					if !strings.Contains(c.Message, want) {
						t.Errorf("message lacks %q: %s", want, c.Message)
					}
				}
				if got, err := k.hostNetwork(ns); err != nil || len(got) != 0 {
					t.Errorf("children of a refused benchmark: %v (%v)", got, err)
				}
			})
		}
	}
}

// waitFailed waits for b's Failed condition and wants it InvalidSpec.
func waitFailed(t *testing.T, b client.Object, common func(client.Object) *benchv1.BenchmarkStatusCommon) metav1.Condition {
	t.Helper()
	var failed metav1.Condition
	util.WaitFor(t, 30*time.Second, b.GetName()+" Failed", func() (bool, string) {
		if err := k8sClient.Get(context.Background(), clientKey(b), b); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(common(b).Conditions, benchv1.ConditionFailed)
		if c == nil || c.Status != metav1.ConditionTrue {
			return false, fmt.Sprintf("%+v", common(b))
		}
		if c.Reason != benchv1.ReasonInvalidSpec {
			t.Fatalf("Failed/%s: %s; want InvalidSpec", c.Reason, c.Message)
		}
		failed = *c
		return true, ""
	})
	return failed
}

// waitHostNetworkChildren waits for the benchmark's children and wants every
// pod template on the nodes' network.
func waitHostNetworkChildren(t *testing.T, hostNetwork func(string) ([]bool, error), ns string) {
	t.Helper()
	util.WaitFor(t, 30*time.Second, "children", func() (bool, string) {
		got, err := hostNetwork(ns)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			return false, "none"
		}
		for _, h := range got {
			if !h {
				t.Fatalf("pod templates' hostNetwork %v, want all true", got)
			}
		}
		return true, ""
	})
}
