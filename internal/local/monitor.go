package local

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// localMonitor samples this machine while one repetition runs, as the
// sampler sidecar does in a cluster, into raw/<rep>/monitor.log. A local
// run has no pod: the series is the machine's, without the pod's own
// processes.
type localMonitor struct {
	cancel context.CancelFunc
	done   chan error
	file   *os.File
	path   string
}

// startMonitor starts sampling for repetition rep, unless monitoring is off.
func (r *Result) startMonitor(rep int) (*localMonitor, error) {
	if !r.monitoring.On() {
		return nil, nil
	}
	path, err := r.rawPath(rep, "monitor.log")
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &localMonitor{cancel: cancel, done: make(chan error, 1), file: f, path: path}
	w := &sampler.Writer{Out: f, Source: sampler.Source{Root: "/"}, Interval: r.monitoring.IntervalOrDefault(), Budget: sampler.DefaultBudget}
	go func() { m.done <- w.Run(ctx) }()
	return m, nil
}

// stop ends the series, keeps it as monitor/<rep>/local.json, as a
// cluster run keeps a pod's, and summarises it over the repetition's phases.
func (r *Result) stopMonitor(m *localMonitor, rep int) ([]results.Sample, error) {
	if m == nil {
		return nil, nil
	}
	phases := r.phases[rep]
	series, err := m.stop()
	if err != nil || series == nil {
		return nil, err
	}
	rec := sampler.Record{Pod: "local", Node: r.Node.Hostname, Phases: phases, Series: *series}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(r.Dir, sampler.MonitorDir, strconv.Itoa(rep))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "local.json"), data, 0o644); err != nil {
		return nil, err
	}
	return sampler.Summarize(*series, phases), nil
}

// stop ends the series and reads it back; nil when the log has none.
func (m *localMonitor) stop() (*sampler.Series, error) {
	m.cancel()
	err := <-m.done
	if cerr := m.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(m.path)
	if err != nil {
		return nil, err
	}
	series, ok := sampler.Decode(data)
	if !ok {
		return nil, nil
	}
	return &series, nil
}

// phase records when a test of repetition rep ran, for the series' summaries.
func (r *Result) phase(rep int, test string, start, end time.Time) {
	if r.phases == nil {
		r.phases = map[int][]sampler.Phase{}
	}
	r.phases[rep] = append(r.phases[rep], sampler.NewPhase(test, start, end))
}
