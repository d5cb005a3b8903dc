package netbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/sampler"
	"github.com/benchwright/benchwright/internal/topology"
)

// ReportMarker is the line before a runner's report in its log; the report
// is the one JSON line after it.
const ReportMarker = "==> benchwright netbench report <=="

// Roles of a node in a step.
const (
	RoleBoth   = "both" // server and client on this node, over loopback
	RoleServer = "server"
	RoleClient = "client"
)

// Report is what one node's runner did: where it ran, what it saw of the
// machine, and each of its steps.
type Report struct {
	Slot int    `json:"slot"`
	Node string `json:"node"`
	// Topology is the node's, as read from sysfs in the pod.
	Topology *topology.Topology `json:"topology"`
	// AllowedCPUs is the runner's cpuset: the CPUs taskset may pin to.
	AllowedCPUs string `json:"allowedCPUs"`
	// Plan is the digest of the steps, the same on every node.
	Plan  string       `json:"plan"`
	Steps []StepReport `json:"steps"`
	// Error says why the runner stopped early, when it did.
	Error string `json:"error,omitempty"`
}

// StepReport is one step as one node saw it.
type StepReport struct {
	Step
	Role string `json:"role"`
	// Argv is what this node ran: the client's command (or the server's
	// where this node only served).
	Argv []string `json:"argv"`
	// Output is the client's output (the result), ServerOutput the server's.
	Output       string  `json:"output,omitempty"`
	ServerOutput string  `json:"serverOutput,omitempty"`
	ExitCode     int     `json:"exitCode"`
	Seconds      float64 `json:"seconds"`
	// Started is when the step began, Unix milliseconds (0 in reports of
	// an older runner).
	Started int64 `json:"started,omitempty"`
	// Error says why the step failed, when it did.
	Error string `json:"error,omitempty"`
}

// Failed is the first failed step, nil when none failed.
func (r *Report) Failed() *StepReport {
	for i := range r.Steps {
		if r.Steps[i].Error != "" {
			return &r.Steps[i]
		}
	}
	return nil
}

// Write prints the report after its marker.
func (r *Report) Write(w io.Writer) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n%s\n", ReportMarker, b)
	return err
}

// MaxFailedReport is how much of a failed runner's log's end the manager
// reads its report from: a report is one line at the end of the log, and a
// failed runner's, which stops at its first failed step, is far shorter than
// a whole run's (each under 2 MiB). A longer one is quoted as a log without
// a report.
const MaxFailedReport = 2 << 20

// ErrNoReport is a log without a report: the runner did not get to the end.
var ErrNoReport = errors.New("no netbench report in the log")

// ReadReport finds the last report in a runner's log. It decodes the
// report's line where it lies in log: no copy of a log of up to 16 MiB.
func ReadReport(log []byte) (*Report, error) {
	var line []byte
	marker, found := false, false
	for l := range bytes.Lines(log) {
		l = bytes.TrimRight(l, "\r\n")
		switch {
		case marker:
			line, found, marker = l, true, false
		case string(bytes.TrimSpace(l)) == ReportMarker:
			marker = true
		}
	}
	if !found {
		return nil, ErrNoReport
	}
	var r Report
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("the netbench report is not valid JSON: %w", err)
	}
	return &r, nil
}

// maxReportCPUs bounds a report's topology: the CPUs a runner looks at.
const maxReportCPUs = 4096

// chipletsFrom are what topology.Read groups chiplets by.
var chipletsFrom = []string{"l3", "numa", "package"}

// Check holds a report, which a pod wrote, to what the manager computes
// itself: the pod's node slot, and the plan that the spec's input gives on
// the report's topology (its digest, and each step's index, test, pair and
// scope, in order, this node's own, in its role). The topology's
// chipletsFrom is one topology.Read gives. A report that does not match is
// not the runner's, and none of its strings may reach the status.
func (r *Report) Check(in Input, slot int) error {
	if r.Slot != slot {
		return fmt.Errorf("the report is node slot %d's, the pod runs slot %d", r.Slot, slot)
	}
	t := r.Topology
	if t == nil {
		return errors.New("the report has no topology")
	}
	if len(t.CPUs) == 0 || len(t.CPUs) > maxReportCPUs {
		return fmt.Errorf("the report's topology has %d CPUs (1 to %d)", len(t.CPUs), maxReportCPUs)
	}
	if !slices.Contains(chipletsFrom, t.ChipletsFrom) {
		return fmt.Errorf("the report's topology groups chiplets by %.20q, not by %s", t.ChipletsFrom, strings.Join(chipletsFrom, ", "))
	}
	steps, err := Plan(in, t)
	if err != nil {
		if len(r.Steps) == 0 && r.Plan == "" {
			return nil // the runner could not plan either: its Error says why
		}
		return fmt.Errorf("the report's topology gives no plan (%w), yet it has one", err)
	}
	if r.Plan != Digest(steps) {
		return fmt.Errorf("the report's plan %.16q is not %s, the plan of its topology", r.Plan, Digest(steps))
	}
	last := -1
	for _, sr := range r.Steps {
		i := sr.Index
		if i <= last || i >= len(steps) || sr.Step != steps[i] {
			return fmt.Errorf("the report's step %d is not step %d of the plan, or out of order", len(r.Steps), i)
		}
		if !sr.Involves(slot) || sr.Role != roleOf(sr.Step, slot) {
			return fmt.Errorf("the report's step %d is not node slot %d's as %.10q", i, slot, sr.Role)
		}
		last = i
	}
	return nil
}

// roleOf is the node slot's role in a step it takes part in.
func roleOf(s Step, slot int) string {
	if s.Pair.Server.Node == s.Pair.Client.Node {
		return RoleBoth
	}
	if s.Pair.Server.Node == slot {
		return RoleServer
	}
	return RoleClient
}

// Phases are the report's steps on the clock of the node's sampler: each
// test with its pair and this node's side of it, so that the series'
// summaries go with the pair's figures.
func (r *Report) Phases() []sampler.Phase {
	var out []sampler.Phase
	for _, sr := range r.Steps {
		if sr.Started <= 0 || !(sr.Seconds >= 0) {
			continue
		}
		start := time.UnixMilli(sr.Started)
		ph := sampler.NewPhase(sr.Test, start, start.Add(time.Duration(sr.Seconds*float64(time.Second))))
		ph.Labels = map[string]string{LabelPair: sr.Pair.Name(), LabelScope: sr.Pair.Scope, sampler.LabelSide: sr.Role}
		out = append(out, ph)
	}
	return out
}
