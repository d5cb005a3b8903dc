package runstore

import (
	"maps"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// Origin is what the cluster knows of one repetition's samples.
type Origin struct {
	Object            metav1.Object
	Kind              string
	Placement         benchv1.Placement
	WarmupRepetitions int32
	Repetition        int
	Attempt           int
	// Node is where the figures were measured: its machine type and settings.
	Node results.NodeInfo
	// Finished stamps samples whose tool prints no time of its own.
	Finished time.Time
}

// Label completes parsed samples with their origin: the run, repetition and
// attempt, the node's machine type and settings, the pool, tuning and
// campaign, the benchmark's axis labels (x-NAME), and whether the repetition
// is a warm-up.
func (o Origin) Label(samples []results.Sample) {
	obj := o.Object
	axes := results.AxisLabels(obj.GetLabels())
	for i := range samples {
		s := &samples[i]
		s.RunUID, s.Kind, s.Namespace, s.Benchmark, s.Repetition = string(obj.GetUID()), o.Kind, obj.GetNamespace(), obj.GetName(), o.Repetition
		if s.Timestamp.IsZero() {
			s.Timestamp = o.Finished
		}
		if s.Labels == nil {
			s.Labels = map[string]string{}
		}
		s.Labels[results.LabelMachineType] = o.Node.MachineType
		for k, v := range o.Node.NodeLabels() {
			s.Labels[k] = v
		}
		s.Labels[results.LabelAttempt] = strconv.Itoa(o.Attempt)
		if o.Placement.Pool != "" {
			s.Labels[results.LabelPool] = string(o.Placement.Pool)
		}
		if o.Placement.Tuning != "" {
			s.Labels[results.LabelTuning] = string(o.Placement.Tuning)
		}
		if c := obj.GetLabels()[benchv1.CampaignLabel]; c != "" {
			s.Labels[results.LabelCampaign] = c
		}
		maps.Copy(s.Labels, axes)
		if o.Repetition < int(o.WarmupRepetitions) {
			s.Labels[results.LabelWarmup] = "true"
		}
	}
}
