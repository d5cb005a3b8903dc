package tuning

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"time"
)

// Phase is what a report is about.
type Phase string

// Report phases.
const (
	// PhaseApplied: the settings were applied (or, later, read again).
	PhaseApplied Phase = "applied"
	// PhaseRestored: the originals were written back.
	PhaseRestored Phase = "restored"
	// PhaseError: the tuner could not do its work (state file, settings).
	PhaseError Phase = "error"
)

// Report is what the tuner tells the controller about one node, one line of
// its log per pass.
type Report struct {
	Node       string `json:"node"`
	Profile    string `json:"profile"`
	Generation int64  `json:"generation"`
	Phase      Phase  `json:"phase"`
	// Tuned is true when every setting reads back as requested and none was
	// refused.
	Tuned    bool            `json:"tuned"`
	Time     time.Time       `json:"time"`
	Settings []SettingReport `json:"settings"`
	Refused  []Refusal       `json:"refused,omitempty"`
	Error    string          `json:"error,omitempty"`
	// FirewallRules counts the rules of the tuner's network namespace, the
	// host's (nodefacts.FirewallRules); nil when they could not be counted.
	FirewallRules *int `json:"firewall_rules,omitempty"`
}

// SettingReport is one setting on one node.
type SettingReport struct {
	Name      string `json:"name"`
	Requested string `json:"requested"`
	Observed  string `json:"observed"`
	Original  string `json:"original"`
	OK        bool   `json:"ok"`
	// Skipped marks a preset's key the node does not have (OK, as tuned).
	Skipped bool   `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ReportPrefix starts every report line in the tuner's log.
const ReportPrefix = "benchwright-tuner report: "

// ErrNoReport is returned by ParseReports for a log without a report.
var ErrNoReport = errors.New("the tuner's log has no report yet")

// ReportLine is a report as one log line (without the newline).
func ReportLine(r Report) string {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return ReportPrefix + string(b)
}

// ParseReports returns the last complete report of a log (or of its tail). A
// line cut short, as a log's first line of a tail or its last while being
// written, is passed over.
func ParseReports(log []byte) (Report, error) {
	var latest Report
	found := false
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	prefix := []byte(ReportPrefix)
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.Index(line, prefix)
		if i < 0 {
			continue
		}
		var r Report
		if err := json.Unmarshal(line[i+len(prefix):], &r); err != nil {
			continue
		}
		latest, found = r, true
	}
	if err := sc.Err(); err != nil && !found {
		return Report{}, err
	}
	if !found {
		return Report{}, ErrNoReport
	}
	return latest, nil
}
