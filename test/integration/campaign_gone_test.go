package integration

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/internal/campaigngc"
	"github.com/benchwright/benchwright/test/util"
)

// A campaign's pool that goes says why where the campaign's steps read
// (issue 44): the manager tells the Workflow it expired an idle pool, and a
// cell whose pool is deleted while it waits names the pool, what the
// manager said of it (here: nothing, a person deleted it) and its last
// condition, not only "not found".
func TestCampaignCellSaysWhyItsPoolWent(t *testing.T) {
	e := newCampaignGCEnv(t)
	wf := createWorkflow(t, e.ns, "why")
	ctx := context.Background()
	cwf := campaign.Workflow{Namespace: e.ns, Name: wf.GetName(), UID: wf.GetUID()}

	labelledNode(t, "why-1", map[string]string{"rack": "why", benchv1.BenchmarkNodeLabel: "true"}, true)
	idle := existingPool(madeBy("why-idle", wf, wf.GetUID()), map[string]string{"rack": "why"})
	idle.Spec.TTLSecondsAfterIdle = ptr.To[int32](1)
	idle.Spec.Existing.Taint = ptr.To(false)
	createCleaned(t, e, idle)
	util.WaitFor(t, 20*time.Second, "IdleExpired told on the Workflow", func() (bool, string) {
		events, err := campaign.WorkflowEvents(ctx, k8sClient, cwf)
		if err != nil {
			t.Fatal(err)
		}
		told := campaigngc.Told(events, "BenchmarkPool", idle.Name)
		return told == "IdleExpired: no benchmark or campaign cell used the pool for 1s (ttlSecondsAfterIdle): deleting it", told
	})

	m, err := campaign.Parse(campaign.Params{
		Pools:      `[{"name": "p", "spec": {"provider": "existing", "existing": {"nodeSelector": {"rack": "nowhere"}}}}]`,
		Benchmarks: `[{"name": "fio", "kind": "StorageBenchmark", "spec": {}}]`})
	if err != nil {
		t.Fatal(err)
	}
	cell, err := m.Cell("p", campaign.UntunedName)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	r := campaign.Runner{Client: k8sClient, Matrix: m, Workflow: cwf, Log: &log, Poll: 100 * time.Millisecond,
		PoolTimeout: time.Minute, ReleaseTimeout: 30 * time.Second}
	done := make(chan error, 1)
	go func() {
		_, _, err := r.RunCell(ctx, cell, false)
		done <- err
	}()
	name := m.PoolName(cwf, cell)
	util.WaitFor(t, 10*time.Second, "the cell's pool NotReady", func() (bool, string) {
		p := &benchv1.BenchmarkPool{}
		err := k8sClient.Get(ctx, clientKey(existingPool(madeBy(name, wf, wf.GetUID()), nil)), p)
		return err == nil && p.Status.State == "NotReady", p.Status.State
	})
	if err := k8sClient.Delete(ctx, existingPool(madeBy(name, wf, wf.GetUID()), nil)); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the cell still waits for its deleted pool:\n%s", log.String())
	}
	for _, want := range []string{
		"BenchmarkPool " + name + " was deleted while this cell waited on it: no event of the manager's says why (deleted by a person or another client, not by its TTL)",
		"it was last NotReady (Ready NoMatchingNodes: no node matches existing.nodeSelector map[rack:nowhere])",
		`benchmarkpools.benchwright.io "` + name + `" not found`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the cell's error lacks %q:\n%v", want, err)
		}
	}
}
