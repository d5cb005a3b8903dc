package sampler

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// storedRecord is a record as a run keeps it, with points given as JSON.
func storedRecord(t *testing.T, test string, points ...string) []byte {
	t.Helper()
	h, err := json.Marshal(Header{V: Version, Start: 1000, Interval: 1, Budget: DefaultBudget, Fields: fields()})
	if err != nil {
		t.Fatal(err)
	}
	ph, err := json.Marshal([]Phase{NewPhase(test, time.UnixMilli(1000), time.UnixMilli(5000))})
	if err != nil {
		t.Fatal(err)
	}
	return []byte(`{"pod":"fio-0","node":"n1","phases":` + string(ph) + `,"series":{"header":` + string(h) +
		`,"points":[` + strings.Join(points, ",") + `],"notes":[{"t":3000,"note":"interval doubled"},{"t":3000,"note":"a\u0007bell"}]}}`)
}

func TestReadRecordKeepsWhatDecodeKeeps(t *testing.T) {
	rec, err := ReadRecord(storedRecord(t, "randread <4k>",
		`{"t":2000,"dt":1,"cpu":[10,0,5,0,0,0,0,85],"disk":{"vda":[1,2,3,4,50,1]}}`,
		`{"t":3000,"dt":1,"cpu":[101,0,5,0,0,0,0,0]}`,           // over 100%
		`{"t":3000,"dt":1,"disk":{"<b>vda</b>":[1,2,3,4,5,6]}}`, // not a device name
		`{"t":1500,"dt":1}`, // back in time
		`{"t":4000,"dt":1,"pod":[150,20,3]}`))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Pod != "fio-0" || rec.Node != "n1" || len(rec.Phases) != 1 || rec.Phases[0].Test != "randread <4k>" ||
		!rec.Phases[0].End.Equal(time.UnixMilli(5000)) {
		t.Errorf("record %+v", rec)
	}
	if len(rec.Series.Points) != 2 || rec.Series.Points[1].Pod[0] != 150 {
		t.Errorf("points %+v, want the two sound ones", rec.Series.Points)
	}
	if len(rec.Series.Notes) != 1 {
		t.Errorf("notes %+v, want the one short line", rec.Series.Notes)
	}
	if rec.Complete() {
		t.Error("a record with points left out is complete")
	}
	problems := strings.Join(rec.Series.Problems, "\n")
	for _, want := range []string{"1× a point that has CPU shares out of range", "1× a point that has disk or network rates out of range",
		"1× a point not after the one before", "1× a note that is not a short line of text"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems do not say %q:\n%s", want, problems)
		}
	}
}

func TestReadRecordRefusesWhatIsNotOne(t *testing.T) {
	good := string(storedRecord(t, "read"))
	for name, data := range map[string]string{
		"garbage":          "\x00\x01not json",
		"unknown field":    strings.Replace(good, `"pod":`, `"extra":1,"pod":`, 1),
		"foreign header":   strings.Replace(good, `"v":1`, `"v":9`, 1),
		"control in test":  string(storedRecord(t, "read\u001b[31m")),
		"phase backwards":  strings.Replace(good, `"end":5000`, `"end":10`, 1),
		"no pod":           strings.Replace(good, `"pod":"fio-0"`, `"pod":""`, 1),
		"two values":       good + "{}",
		"negative restart": strings.Replace(good, `"pod":`, `"restarts":-1,"pod":`, 1),
	} {
		if _, err := ReadRecord([]byte(data)); err == nil {
			t.Errorf("%s: read as a record", name)
		}
	}
}

func FuzzReadRecord(f *testing.F) {
	f.Add([]byte(`{"pod":"p","node":"n","phases":[{"test":"t","start":1000,"end":2000}],"series":{"header":{"v":1,"start":1000,"interval":1,"budget":1,"fields":{}},"points":[{"t":2000,"dt":1}]}}`))
	f.Add([]byte(`{"pod":"p"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ReadRecord(data)
		if err != nil {
			return
		}
		s := rec.Series
		if len(s.Points) > MaxPoints || len(s.Notes) > maxNotes || len(s.Problems) > 2*maxProblems || len(rec.Phases) > maxPhases {
			t.Fatalf("bounds broken: %d points, %d notes, %d problems, %d phases", len(s.Points), len(s.Notes), len(s.Problems), len(rec.Phases))
		}
		for _, ph := range rec.Phases {
			if !printable(ph.Test) || ph.EndMs < ph.StartMs {
				t.Fatalf("phase %+v", ph)
			}
		}
		Summarize(s, rec.Phases)
	})
}
