package artifacts

import (
	"fmt"
	"strconv"
	"strings"
)

// Location is where one run's artifacts live: <namespace>/<kind>/<name>/<uid>/.
type Location struct {
	Namespace, Kind, Name, UID string
}

// Validate checks that each element is a single, non-empty path element, so
// that a crafted name cannot escape its prefix.
func (l Location) Validate() error {
	for _, e := range []struct{ what, v string }{
		{"namespace", l.Namespace}, {"kind", l.Kind}, {"name", l.Name}, {"uid", l.UID},
	} {
		if err := checkElement(e.what, e.v); err != nil {
			return err
		}
	}
	return nil
}

// Prefix is the key prefix of the run, "ns/Kind/name/uid/", for List and Delete.
func (l Location) Prefix() (string, error) {
	if err := l.Validate(); err != nil {
		return "", err
	}
	return l.Namespace + "/" + l.Kind + "/" + l.Name + "/" + l.UID + "/", nil
}

// SamplesNDJSON is the key of the samples, one JSON object per line.
func (l Location) SamplesNDJSON() (string, error) { return l.key("samples.ndjson") }

// SamplesCSV is the key of the samples as CSV.
func (l Location) SamplesCSV() (string, error) { return l.key("samples.csv") }

// Summary is the key of the run's summary.
func (l Location) Summary() (string, error) { return l.key("summary.json") }

// Nodes is the key of the description of the nodes the run used.
func (l Location) Nodes() (string, error) { return l.key("nodes.json") }

// Outcome is the key of outcome.json, written when the run succeeded: the
// results database indexes the runs that have it.
func (l Location) Outcome() (string, error) { return l.key("outcome.json") }

// Report is the key of the HTML report.
func (l Location) Report() (string, error) { return l.key("report.html") }

// JobFile is the key of the fio job file a StorageBenchmark's pods ran.
func (l Location) JobFile() (string, error) { return l.key("job.fio") }

// Steps is the key of the steps an MPIBenchmark's launcher ran.
func (l Location) Steps() (string, error) { return l.key("steps.json") }

// RawLog is the key of a pod's own output in a repetition:
// raw/<repetition>/<pod>.log. Retried attempts of a repetition run in pods of
// other names, so their logs sit side by side.
func (l Location) RawLog(repetition int, pod string) (string, error) {
	if repetition < 0 {
		return "", fmt.Errorf("invalid artifact location: repetition %d is negative", repetition)
	}
	if err := checkElement("pod", pod); err != nil {
		return "", err
	}
	return l.key("raw/" + strconv.Itoa(repetition) + "/" + pod + ".log")
}

// Monitor is where the sampler's series of a pod in a repetition goes.
func (l Location) Monitor(repetition int, pod string) (string, error) {
	if repetition < 0 {
		return "", fmt.Errorf("invalid artifact location: repetition %d is negative", repetition)
	}
	if err := checkElement("pod", pod); err != nil {
		return "", err
	}
	return l.key("monitor/" + strconv.Itoa(repetition) + "/" + pod + ".json")
}

func (l Location) key(name string) (string, error) {
	p, err := l.Prefix()
	if err != nil {
		return "", err
	}
	return p + name, nil
}

func checkElement(what, v string) error {
	switch {
	case v == "":
		return fmt.Errorf("invalid artifact location: %s is empty", what)
	case v == "." || v == "..":
		return fmt.Errorf("invalid artifact location: %s is %q", what, v)
	case strings.ContainsAny(v, `/\`):
		return fmt.Errorf("invalid artifact location: %s %q contains a slash", what, v)
	}
	return nil
}

// CampaignKind is the kind element of campaign reports' keys.
const CampaignKind = "Campaign"

// CampaignFormats are the formats a campaign's report is published in, with
// their content types.
var CampaignFormats = map[string]string{
	"html": "text/html; charset=utf-8",
	"md":   "text/markdown; charset=utf-8",
	"csv":  "text/csv; charset=utf-8",
}

// CampaignReport is the key of a campaign's report in one format:
// <namespace>/Campaign/<campaign>/report.<format>. A campaign (an Argo
// Workflow, say) has runs of several benchmarks; its report compares them.
func CampaignReport(namespace, campaign, format string) (string, error) {
	if _, ok := CampaignFormats[format]; !ok {
		return "", fmt.Errorf("invalid campaign report format %q (html, md or csv)", format)
	}
	for _, e := range []struct{ what, v string }{{"namespace", namespace}, {"campaign", campaign}} {
		if err := checkElement(e.what, e.v); err != nil {
			return "", err
		}
	}
	return namespace + "/" + CampaignKind + "/" + campaign + "/report." + format, nil
}
