package artifactserver

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/benchwright/benchwright/internal/sampler"
)

// MonitorListing answers GET /files/<ns>/<Kind>/<name>/<uid>/monitor/: the
// run's series files, which a report reading the store through this
// server (benchwright report, a campaign's publish step) then gets one by
// one as files of the run.
type MonitorListing struct {
	// Files are monitor/<repetition>/<pod>.json, below the run, in the
	// store's order; at most MaxMonitorFiles.
	Files []string `json:"files"`
	// Truncated says the listing stopped at MaxMonitorFiles keys under
	// monitor/ (of the layout or not).
	Truncated bool `json:"truncated,omitempty"`
}

// MaxMonitorFiles bounds a run's listing: a pod's record per repetition,
// far more than a report draws (it draws six per run).
const MaxMonitorFiles = 1000

// monitorListing answers a run's listing of monitor/ (run: ns/Kind/name/uid),
// for the readers the run's own files are for.
func (h *Handler) monitorListing(w http.ResponseWriter, r *http.Request, run string) {
	loc, err := parseLocation(strings.Split(run, "/"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	prefix, ok := h.readablePrefix(w, r, loc)
	if !ok {
		return
	}
	keys, truncated, err := h.store.ListN(r.Context(), prefix+sampler.MonitorDir+"/", MaxMonitorFiles)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	out := MonitorListing{Files: []string{}, Truncated: truncated}
	for _, key := range keys {
		// Only keys of the layout: the name the file is served by.
		if _, _, err := parseKey(key); err == nil {
			out.Files = append(out.Files, fileName(key))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodHead {
		return
	}
	_ = json.NewEncoder(w).Encode(out)
}
