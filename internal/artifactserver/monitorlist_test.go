package artifactserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"

	"github.com/benchwright/benchwright/internal/runstore"
)

// A run's series are listed by GET .../monitor/ (keys of the layout only)
// and served as its files, to the readers of the run alone; the run's page
// links them.
func TestRunSeriesAreListedAndServed(t *testing.T) {
	store, _ := newStore(t)
	ctx := context.Background()
	run := runstore.Run{Store: store, Location: fioRun}
	for _, pod := range []string{"c3-randread-r0-a1", "c3-randread-r0-a2"} {
		if err := run.PutMonitor(ctx, 0, pod, []byte(`{"pod":"`+pod+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	// Beside them, keys no writer of the layout makes.
	for _, key := range []string{"monitor/0/notes.txt", "monitor/x/a.json", "monitor/0/deeper/a.json"} {
		if err := store.Put(ctx, "perf/StorageBenchmark/c3-randread/0b6c-11/"+key, []byte("stray"), ""); err != nil {
			t.Fatal(err)
		}
	}
	h := NewPublishing(store, tokens{"perf-token": "perf", "hpc-token": "hpc"}, testr.New(t))
	base := "/files/perf/StorageBenchmark/c3-randread/0b6c-11/"

	w := getAs(t, h, base+"monitor/", "perf-token")
	var list MonitorListing
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" || json.Unmarshal(w.Body.Bytes(), &list) != nil {
		t.Fatalf("GET monitor/ = %d %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	want := []string{"monitor/0/c3-randread-r0-a1.json", "monitor/0/c3-randread-r0-a2.json"}
	if strings.Join(list.Files, " ") != strings.Join(want, " ") || list.Truncated {
		t.Errorf("listing = %+v, want %v", list, want)
	}
	if w := getAs(t, h, base+want[1], "perf-token"); w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" ||
		w.Body.String() != `{"pod":"c3-randread-r0-a2"}` {
		t.Errorf("GET %s = %d %q: %s", want[1], w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if w := getAs(t, h, "/runs/perf/StorageBenchmark/c3-randread/0b6c-11/", "perf-token"); !strings.Contains(w.Body.String(), want[0]) {
		t.Errorf("the run's page does not link %s:\n%s", want[0], w.Body)
	}

	// Another namespace's reader learns nothing; stray keys are not files.
	for target, code := range map[string]int{
		base + "monitor/":            http.StatusForbidden,
		base + want[0]:               http.StatusForbidden,
		base + "monitor/0/notes.txt": http.StatusBadRequest,
		base + "monitor/x/a.json":    http.StatusBadRequest,
		base + "monitor":             http.StatusBadRequest,
		"/files/perf/StorageBenchmark/c3-randread/monitor/": http.StatusBadRequest,
	} {
		if w := getAs(t, h, target, "hpc-token"); w.Code != code || strings.Contains(w.Body.String(), "c3-randread-r0") {
			t.Errorf("GET %s as hpc = %d, want %d: %s", target, w.Code, code, w.Body)
		}
	}

	// A run without series lists none (an empty list, not null).
	w = getAs(t, h, "/files/hpc/MPIBenchmark/osu-lat/7f2e-22/monitor/", "hpc-token")
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `{"files":[]}` {
		t.Errorf("a run without series: %d %s", w.Code, w.Body)
	}
}
