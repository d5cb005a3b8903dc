package fio

import (
	"os"
	"testing"
	"time"
)

func TestJobWindowsOfARealRun(t *testing.T) {
	data, err := os.ReadFile("testdata/fio3.33_two_jobs_stonewall_ramp.json")
	if err != nil {
		t.Fatal(err)
	}
	w, ok := JobWindows(data, nil)
	if !ok || len(w) != 2 {
		t.Fatalf("windows %+v, ok %v", w, ok)
	}
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	// b: 3000 ms measured after a 1 s ramp, ending at the report's time.
	if w[1].Job != "b" || ms(w[1].End) != 1795795418267 || ms(w[1].Start) != 1795795418267-4000 {
		t.Errorf("b: %+v", w[1])
	}
	if w[0].Job != "a" || w[0].End != w[1].Start || ms(w[0].Start) != 1795795418267-4000-2002 {
		t.Errorf("a: %+v", w[0])
	}
	// Within the run as the clock saw it from outside (fio started at
	// ...411650 and ended at ...418274).
	if ms(w[0].Start) < 1795795411650 || ms(w[1].End) > 1795795418274 {
		t.Errorf("windows %+v outside the run", w)
	}
}

func TestJobWindowsWithoutTimes(t *testing.T) {
	if _, ok := JobWindows([]byte(`{"fio version": "fio-2.2", "jobs": [{"jobname": "a"}]}`), nil); ok {
		t.Error("a report without timestamp_ms has windows")
	}
	if _, ok := JobWindows([]byte("garbage"), nil); ok {
		t.Error("garbage has windows")
	}
}

func TestFioDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 0, "2": 2 * time.Second, "1.5": 1500 * time.Millisecond, "500ms": 500 * time.Millisecond, "1m": time.Minute, "x": 0, "-3": 0} {
		if got := fioDuration(in); got != want {
			t.Errorf("fioDuration(%q) = %s, want %s", in, got, want)
		}
	}
}
