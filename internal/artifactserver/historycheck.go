package artifactserver

import (
	"encoding/json"
	"net/http"

	"github.com/benchwright/benchwright/internal/historycheck"
)

// HistoryCheckPath is a run checked against its histories, as JSON
// (historycheck.Result): ?run=UID, with namespace and kind where the
// server authorizes.
const HistoryCheckPath = "/api/history/check"

// serveHistoryCheck answers HistoryCheckPath.
func (h *Handler) serveHistoryCheck(w http.ResponseWriter, r *http.Request) {
	if h.history == nil {
		http.Error(w, "no results database: the manager runs without --results-db", http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	uid, ns, kind := q.Get("run"), q.Get("namespace"), q.Get("kind")
	if uid == "" {
		http.Error(w, "run is needed: ?run=UID (a run's UID)", http.StatusBadRequest)
		return
	}
	if h.auth != nil {
		if ns == "" || kind == "" {
			http.Error(w, "a check read with a token names the run's namespace and kind (?namespace=...&kind=StorageBenchmark)", http.StatusBadRequest)
			return
		}
		if !h.mayRead(w, r, ns, resourceOf(kind), "") {
			return
		}
	}
	res, err := historycheck.Run(r.Context(), h.history, uid)
	if err != nil {
		if r.Context().Err() == nil {
			h.log.Error(err, "checking a run's history", "run", uid)
		}
		http.Error(w, "checking the run failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	for _, f := range res.Findings {
		if ns != "" && f.History.Config.Namespace != ns || kind != "" && f.History.Config.Kind != kind {
			http.Error(w, "no such run in that namespace and kind", http.StatusNotFound)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}
