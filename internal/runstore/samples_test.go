package runstore

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// A benchmark's axis labels (benchwright.io/x-NAME) reach every sample as
// x-NAME, for reports to plot figures against; its other labels do not.
func TestLabelCopiesAxisLabels(t *testing.T) {
	obj := &metav1.ObjectMeta{Name: "b", Labels: map[string]string{
		benchv1.AxisLabelPrefix + "numa-nodes": "4", benchv1.CampaignLabel: "s4", "team": "io",
	}}
	samples := []results.Sample{{Test: "t", Metric: "write_bw"}}
	Origin{Object: obj, Kind: "StorageBenchmark"}.Label(samples)
	l := samples[0].Labels
	if l["x-numa-nodes"] != "4" || l[results.LabelCampaign] != "s4" || l["team"] != "" {
		t.Errorf("labels %v, want x-numa-nodes 4 and campaign s4, no team", l)
	}
}
