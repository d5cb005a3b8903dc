package netbench

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/benchwright/benchwright/internal/fabtests"
	"github.com/benchwright/benchwright/internal/iperf3"
	"github.com/benchwright/benchwright/internal/results"
)

// Labels of NetworkBenchmark samples: the pair, and where each end sat.
const (
	LabelPair          = "pair"
	LabelScope         = "scope"
	LabelServerNode    = "server_node"
	LabelClientNode    = "client_node"
	LabelServerCPU     = "server_cpu"
	LabelClientCPU     = "client_cpu"
	LabelServerChiplet = "server_chiplet"
	LabelClientChiplet = "client_chiplet"
	LabelServerSocket  = "server_socket"
	LabelClientSocket  = "client_socket"
	LabelProvider      = "provider"
)

// GroupBy splits a NetworkBenchmark's figures by pair and message size.
var GroupBy = []string{LabelPair, LabelScope, results.LabelMsgSize}

// StepError is a step that failed, from the report of the node that saw it.
type StepError struct {
	Node string
	Step StepReport
}

func (e *StepError) Error() string {
	return fmt.Sprintf("%s %s (%s) on node %s: %s", e.Step.Test, e.Step.Pair.Name(), e.Step.Pair.Scope, e.Node, e.Step.Error)
}

// Samples parses the client output of every step in the nodes' reports
// (a step's result is on its client's node) and labels each sample with its
// pair. nodeNames maps a slot to its node's name.
func Samples(in Input, reports []*Report) ([]results.Sample, error) {
	names := map[int]string{}
	for _, r := range reports {
		names[r.Slot] = r.Node
	}
	var out []results.Sample
	for _, r := range reports {
		samples, err := ReportSamples(in, r, names)
		if err != nil {
			return nil, err
		}
		if out = append(out, samples...); len(out) > results.MaxRunSamples {
			return nil, results.ErrTooManySamples
		}
	}
	return out, nil
}

// ReportSamples is Samples of one node's report, names mapping every slot to
// its node's name: a caller can parse each report as it reads it and let its
// outputs go. Steps of tests the input does not run are ignored; more than
// results.MaxRunSamples samples are an error.
func ReportSamples(in Input, r *Report, names map[int]string) ([]results.Sample, error) {
	tests := in.Tests()
	var out []results.Sample
	for _, sr := range r.Steps {
		if sr.Role == RoleServer || !slices.Contains(tests, sr.Test) {
			continue
		}
		if sr.Error != "" {
			return nil, &StepError{Node: r.Node, Step: sr}
		}
		samples, err := parseStep(in, sr)
		if ft, ip := (*fabtests.ToolError)(nil), (*iperf3.ToolError)(nil); errors.As(err, &ft) || errors.As(err, &ip) {
			// The tool said it failed, yet exited 0: a failed step all the same.
			sr.Error = err.Error()
			return nil, &StepError{Node: r.Node, Step: sr}
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s on node %s: %w", sr.Test, sr.Pair.Name(), r.Node, err)
		}
		for i := range samples {
			labelPair(&samples[i], in, sr.Pair, names)
		}
		if out = append(out, samples...); len(out) > results.MaxRunSamples {
			return nil, results.ErrTooManySamples
		}
	}
	return out, nil
}

func parseStep(in Input, sr StepReport) ([]results.Sample, error) {
	if in.IPerf3 != nil {
		return iperf3.Parse([]byte(sr.Output), sr.Test)
	}
	return fabtests.Parse([]byte(sr.Output), sr.Test)
}

func labelPair(s *results.Sample, in Input, p Pair, names map[int]string) {
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	l := s.Labels
	l[LabelPair], l[LabelScope] = p.Name(), p.Scope
	l[LabelServerNode], l[LabelClientNode] = names[p.Server.Node], names[p.Client.Node]
	l[LabelServerCPU], l[LabelClientCPU] = strconv.Itoa(p.Server.CPU), strconv.Itoa(p.Client.CPU)
	l[LabelServerChiplet], l[LabelClientChiplet] = strconv.Itoa(p.Server.Chiplet), strconv.Itoa(p.Client.Chiplet)
	l[LabelServerSocket], l[LabelClientSocket] = strconv.Itoa(p.Server.Package), strconv.Itoa(p.Client.Package)
	if in.Fabtests != nil {
		l[LabelProvider] = in.Fabtests.ProviderOrDefault()
	}
	// The node of a sample is the client's: where the result was printed.
	l[results.LabelNode] = names[p.Client.Node]
}
