package fio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/benchwright/benchwright/internal/results"
)

// maxEntries bounds the job entries kept of one report: 64 jobs of 256
// processes each reported apart (numjobs without group_reporting).
const maxEntries = 64 * 256

// jobList is fio's "jobs" array, decoded one entry at a time: the entries of
// jobs not wanted are skipped after reading their name.
type jobList struct {
	want []string
	jobs []fioJob
}

// wantedOutput decodes fio's output keeping the wanted jobs' entries: its
// Jobs hides fioOutput's.
type wantedOutput struct {
	fioOutput
	Jobs jobList `json:"jobs"`
}

// UnmarshalJSON decodes the entries wanted. The whole document has been
// checked to be valid JSON before it is called.
func (l *jobList) UnmarshalJSON(data []byte) error {
	rest := bytes.TrimSpace(data)
	if string(rest) == "null" {
		return nil
	}
	if len(rest) == 0 || rest[0] != '[' {
		return fmt.Errorf("fio's jobs are not an array")
	}
	rest = rest[1:]
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n,")
		if len(rest) == 0 || rest[0] == ']' {
			return nil
		}
		n := results.JSONObjectLen(rest)
		if rest[0] != '{' || n < 0 {
			return fmt.Errorf("an entry of fio's jobs is not an object")
		}
		entry := rest[:n]
		rest = rest[n:]
		var head struct {
			Name string `json:"jobname"`
		}
		if err := json.Unmarshal(entry, &head); err != nil {
			return err
		}
		if !slices.Contains(l.want, head.Name) {
			continue
		}
		if len(l.jobs) == maxEntries {
			return fmt.Errorf("%w: fio's report has over %d entries of the jobs asked for", results.ErrOutputTooLarge, maxEntries)
		}
		var j fioJob
		if err := json.Unmarshal(entry, &j); err != nil {
			return err
		}
		l.jobs = append(l.jobs, j)
	}
}
