//go:build real

package real

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/test/util"
)

// A campaign on a schedule (examples/cron/s1-nightly.yaml, every minute
// here) runs under the real Argo controller's cron controller at least
// twice, and the history holds each run of its one cell's figure: the
// nights' benchmarks are named after their Workflows, their series after
// the campaign's own names. make cron-real; not in CI (about 5 minutes).
func TestCronCampaign(t *testing.T) {
	needArgo(t)
	cron := readCron(t)
	cron.SetNamespace(campaignNamespace)
	cron.SetName("real-nightly")
	_ = unstructured.SetNestedStringSlice(cron.Object, []string{"* * * * *"}, "spec", "schedules")
	_ = unstructured.SetNestedField(cron.Object, int64(600), "spec", "startingDeadlineSeconds")
	args := []any{}
	for k, v := range map[string]string{
		"title":        "real cron: one fio cell",
		"pools":        `[{"name": "m1"}]`,
		"poolDefaults": `{"provider": "existing", "existing": {"nodeSelector": {"benchwright.io/real-node": "true"}}}`,
		"tunings":      `[{"name": "none"}]`,
		"benchmarks":   mustJSON(t, []map[string]any{{"name": "fio", "kind": "StorageBenchmark", "spec": fioSpec()}}),
	} {
		args = append(args, map[string]any{"name": k, "value": v})
	}
	_ = unstructured.SetNestedSlice(cron.Object, args, "spec", "workflowSpec", "arguments", "parameters")
	if err := k8s.Create(ctx(), cron); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k8s.Delete(ctx(), cron)
		_ = k8s.DeleteAllOf(ctx(), workflowObject(), client.InNamespace(campaignNamespace),
			client.MatchingLabels{"workflows.argoproj.io/cron-workflow": cron.GetName()})
	})
	var done []string
	util.WaitFor(t, 12*time.Minute, "two scheduled campaigns Succeeded", func() (bool, string) {
		var list unstructured.UnstructuredList
		list.SetGroupVersionKind(workflowGVK.GroupVersion().WithKind("WorkflowList"))
		if err := k8s.List(ctx(), &list, client.InNamespace(campaignNamespace),
			client.MatchingLabels{"workflows.argoproj.io/cron-workflow": cron.GetName()}); err != nil {
			return false, err.Error()
		}
		var phases []string
		done = done[:0]
		for _, wf := range list.Items {
			phase, _, _ := unstructured.NestedString(wf.Object, "status", "phase")
			phases = append(phases, wf.GetName()+"="+phase)
			if phase == "Failed" || phase == "Error" {
				t.Fatalf("scheduled campaign %s: %s", wf.GetName(), phase)
			}
			if phase == "Succeeded" {
				done = append(done, wf.GetName())
			}
		}
		return len(done) >= 2, fmt.Sprint(phases)
	})
	t.Logf("scheduled campaigns Succeeded: %v", done)
	if err := k8s.Delete(ctx(), cron); err != nil { // no third
		t.Fatal(err)
	}
	out, err := exec.Command(buildCLI(t), "history", "--metric", "read_iops", "--benchmark", "fio", "-n", campaignNamespace,
		"-l", "pool=m1", "--format", "json", "--kubeconfig", env["KUBECONFIG"],
		"--manager", env["SYSTEM_NAMESPACE"]+"/benchwright-manager").CombinedOutput()
	if err != nil {
		t.Fatalf("benchwright history: %v\n%s", err, out)
	}
	var hs []resultsdb.History
	if err := json.Unmarshal(out, &hs); err != nil || len(hs) != 1 {
		t.Fatalf("want one configuration: %v\n%s", err, out)
	}
	var campaigns []string
	for _, p := range hs[0].Points {
		campaigns = append(campaigns, p.Campaign)
	}
	for _, wf := range done {
		if !slices.Contains(campaigns, wf) {
			t.Errorf("the history of fio in pool m1 (%v) lacks the scheduled campaign %s", campaigns, wf)
		}
	}
	t.Logf("the history's runs, by campaign: %v; configuration %s", campaigns, hs[0].Config)
}

// readCron is examples/cron/s1-nightly.yaml.
func readCron(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	util.LoadExample(t, "cron/s1-nightly.yaml", u)
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "CronWorkflow"})
	return u
}

func workflowObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(workflowGVK)
	return u
}
