package sampler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func headerLine(t testing.TB) string {
	data, err := json.Marshal(Header{V: Version, Start: 1000, Interval: 1, Budget: DefaultBudget, Fields: fields()})
	if err != nil {
		t.Fatal(err)
	}
	return HeaderPrefix + string(data) + "\n"
}

func TestDecodeKeepsWhatIsSound(t *testing.T) {
	good := `{"t":2000,"dt":1,"cpu":[10,0,5,0,0,0,0,85],"disk":{"sda":[1,2,3,4,50,1]}}`
	log := headerLine(t) +
		"some line of the tool\n" +
		PointPrefix + good + "\n" +
		PointPrefix + `{"t":3000,"dt":1,"cpu":[10,0,5,0,0,0,0]}` + "\n" + // a field short
		PointPrefix + `{"t":3000,"dt":1,"cpu":[101,0,5,0,0,0,0,0]}` + "\n" + // over 100%
		PointPrefix + `{"t":3000,"dt":1,"disk":{"sd\u001b[31m":[1,2,3,4,5,6]}}` + "\n" + // escape in a name
		PointPrefix + `{"t":3000,"dt":1,"disk":{"sda":[1,2,3,4,150,1]}}` + "\n" + // util over 100%
		PointPrefix + `{"t":3000,"dt":1,"net":{"eth0":[-1,0,0,0,0,0]}}` + "\n" + // negative rate
		PointPrefix + `{"t":1500,"dt":1}` + "\n" + // back in time
		PointPrefix + `{"t":3000,"dt":1,"extra":1}` + "\n" + // unknown field
		PointPrefix + `{"t":3000,"dt":1}{"t":4000}` + "\n" + // two values
		NotePrefix + `{"t":3000,"note":"disk sdb is gone"}` + "\n" +
		NotePrefix + `{"t":3000,"note":"a\u0007bell"}` + "\n" +
		headerLine(t) +
		PointPrefix + `{"t":4000,"dt":2,"pod":[150,20,3]}` + "\n"
	s, ok := Decode([]byte(log))
	if !ok {
		t.Fatal("no series")
	}
	if len(s.Points) != 2 || s.Points[0].Disks["sda"][4] != 50 || s.Points[1].Pod[0] != 150 {
		t.Fatalf("points %+v, want the two sound ones", s.Points)
	}
	if len(s.Notes) != 1 || s.Notes[0].Note != "disk sdb is gone" {
		t.Errorf("notes %+v", s.Notes)
	}
	problems := strings.Join(s.Problems, "\n")
	for _, want := range []string{"1× a point not after the one before", "1× a second header", "1× a note that is not"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems do not say %q:\n%s", want, problems)
		}
	}
	var n int
	for _, p := range s.Problems {
		var k int
		if _, err := fmt.Sscanf(p, "%d×", &k); err == nil {
			n += k
		}
	}
	if n != 10 {
		t.Errorf("%d lines counted as problems, want 10:\n%s", n, problems)
	}
}

func TestDecodeRefusesAForeignHeader(t *testing.T) {
	for _, h := range []string{
		`{"v":2,"start":1,"interval":1,"fields":{}}`,
		`{"v":1,"start":1,"interval":0,"fields":{}}`,
		`{"v":1,"start":1,"interval":1,"fields":{"cpu":["user"]}}`,
		`not json`,
	} {
		s, ok := Decode([]byte(HeaderPrefix + h + "\n" + PointPrefix + `{"t":2000,"dt":1}` + "\n"))
		if ok || len(s.Points) > 0 || len(s.Problems) != 1 {
			t.Errorf("header %s: ok %v, %d points, problems %q", h, ok, len(s.Points), s.Problems)
		}
	}
	if _, ok := Decode([]byte("fio output only\n")); ok {
		t.Error("a log without a header has a series")
	}
}

func TestDecodeBoundsTheSeries(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(headerLine(t))
	for i := range MaxPoints + 10 {
		fmt.Fprintf(&b, "%s{\"t\":%d,\"dt\":1}\n", PointPrefix, 2000+i*1000)
	}
	b.WriteString(PointPrefix + strings.Repeat(" ", maxLineLen) + "\n")
	s, _ := Decode(b.Bytes())
	if len(s.Points) != MaxPoints {
		t.Errorf("%d points kept, want %d", len(s.Points), MaxPoints)
	}
	if len(s.Problems) != 2 {
		t.Errorf("problems %q, want the points beyond the bound and the long line", s.Problems)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(headerLine(f) + PointPrefix + `{"t":2000,"dt":1,"cpu":[10,0,5,0,0,0,0,85],"cores":[[1,2,3,4,5,6,7],null]}` + "\n"))
	f.Add([]byte(headerLine(f) + NotePrefix + `{"t":2000,"note":"stopped"}` + "\n"))
	f.Add([]byte("bw-sampler: {}\nbw-sample: {}\n"))
	f.Fuzz(func(t *testing.T, log []byte) {
		s, _ := Decode(log)
		if len(s.Points) > MaxPoints || len(s.Notes) > maxNotes || len(s.Problems) > maxProblems+1 {
			t.Fatalf("bounds broken: %d points, %d notes, %d problems", len(s.Points), len(s.Notes), len(s.Problems))
		}
		for _, p := range s.Points {
			for _, c := range append([][]float64{p.CPU}, p.Cores...) {
				if !all(c, 0, 100.5) {
					t.Fatalf("a share out of range: %v", c)
				}
			}
		}
		// What is kept is summarised without a panic.
		Summarize(s, []Phase{{Test: "t", StartMs: 0, EndMs: 1 << 62}})
	})
}
