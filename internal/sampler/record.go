package sampler

// Record is one pod's series as a run's files keep it,
// monitor/<repetition>/<pod>.json (a local run's pod is "local").
type Record struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
	// Phases are the tool's tests on the series' clock.
	Phases []Phase `json:"phases"`
	// Restarts counts the sampler's restarts: the series is its last run's.
	Restarts int32  `json:"restarts,omitempty"`
	Series   Series `json:"series"`
}

// Complete tells whether the series covers the pod's whole run.
func (r Record) Complete() bool { return r.Restarts == 0 && len(r.Series.Problems) == 0 }

// MonitorDir is the directory of a run's series, beside samples.ndjson.
const MonitorDir = "monitor"
