package netbench

import (
	"testing"

	"github.com/benchwright/benchwright/internal/sampler"
)

func TestReportPhases(t *testing.T) {
	pair := Pair{Server: End{Node: 0}, Client: End{Node: 1}, Scope: "inter-node"}
	r := Report{Steps: []StepReport{
		{Step: Step{Index: 0, Test: "fi_pingpong", Pair: pair}, Role: RoleClient, Started: 5000, Seconds: 2.5},
		{Step: Step{Index: 1, Test: "fi_rdm_tagged_bw", Pair: pair}, Role: RoleClient, Seconds: 1}, // an older runner's: no start
	}}
	got := r.Phases()
	if len(got) != 1 || got[0].Test != "fi_pingpong" || got[0].StartMs != 5000 || got[0].EndMs != 7500 ||
		got[0].Labels[LabelPair] != pair.Name() || got[0].Labels[LabelScope] != "inter-node" || got[0].Labels[sampler.LabelSide] != RoleClient {
		t.Errorf("phases %+v", got)
	}
}
