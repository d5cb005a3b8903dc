package artifactserver

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
)

// workflows are campaigns' Workflows by namespace/name; absent: deleted.
type workflows map[string]CampaignRun

func (w workflows) CampaignRun(_ context.Context, namespace, name string) (CampaignRun, bool, error) {
	if name == "broken" {
		return CampaignRun{}, false, errors.New("the API server is away")
	}
	run, ok := w[namespace+"/"+name]
	return run, ok, nil
}

// The campaigns list gives each campaign's state and date, newest first: a
// failed campaign stands out, and one whose Workflow is gone is dated by
// its report.
func TestCampaignsListStateAndDateNewestFirst(t *testing.T) {
	store, dir := newStore(t)
	ctx := context.Background()
	for _, name := range []string{"old-ok", "new-failed", "gone", "broken", "running"} {
		if err := store.Put(ctx, "perf/Campaign/"+name+"/report.html", []byte("<html>"), "text/html"); err != nil {
			t.Fatal(err)
		}
	}
	published := time.Date(2025, 3, 4, 8, 0, 0, 0, time.UTC)
	for _, name := range []string{"gone", "broken"} {
		if err := os.Chtimes(filepath.Join(dir, "perf/Campaign", name, "report.html"), published, published); err != nil {
			t.Fatal(err)
		}
	}
	day := func(d int) time.Time { return time.Date(2025, 3, d, 9, 30, 0, 0, time.UTC) }
	h := New(store, testr.New(t)).WithCampaignRuns(workflows{
		"perf/old-ok":     {Phase: "Succeeded", Started: day(1), Finished: day(1).Add(time.Hour)},
		"perf/new-failed": {Phase: "Failed", Started: day(3), Finished: day(3).Add(time.Hour)},
		"perf/running":    {Phase: "Running", Started: day(5)},
	})
	w := get(t, h, http.MethodGet, "/")
	if w.Code != http.StatusOK {
		t.Fatalf("GET / = %d %s", w.Code, w.Body)
	}
	rows := regexp.MustCompile(`<tr><td>perf</td><td>([^<]+)</td><td( class="failed")?>([^<]+)</td><td>(?:<span title="(\w+)">)?([^<]+)`).FindAllStringSubmatch(w.Body.String(), -1)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join([]string{r[1], strings.TrimSpace(r[2]), r[3], r[4], r[5]}, " | "))
	}
	want := []string{
		"running |  | Running | started | 2025-03-05 09:30:00Z",
		"broken |  | unknown | published | 2025-03-04 08:00:00Z",
		"gone |  | Workflow deleted | published | 2025-03-04 08:00:00Z",
		"new-failed | class=\"failed\" | Failed | started | 2025-03-03 09:30:00Z",
		"old-ok |  | Succeeded | started | 2025-03-01 09:30:00Z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("campaigns list:\n%s\nwant:\n%s\npage:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), w.Body)
	}
}
