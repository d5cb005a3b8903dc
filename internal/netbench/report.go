package netbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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

// ErrNoReport is a log without a report: the runner did not get to the end.
var ErrNoReport = errors.New("no netbench report in the log")

// ReadReport finds the last report in a runner's log.
func ReadReport(log []byte) (*Report, error) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	var line []byte
	for sc.Scan() {
		if string(bytes.TrimSpace(sc.Bytes())) == ReportMarker && sc.Scan() {
			line = append(line[:0], sc.Bytes()...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the log: %w", err)
	}
	if line == nil {
		return nil, ErrNoReport
	}
	var r Report
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("the netbench report is not valid JSON: %w", err)
	}
	return &r, nil
}
