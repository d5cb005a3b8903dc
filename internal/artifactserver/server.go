// Package artifactserver serves the artifact store over HTTP: an index of
// the runs, a page per run with its figures and files, and the files
// themselves, streamed from the store. Pages are self-contained (inline CSS,
// no scripts, nothing fetched from elsewhere), so they work through `kubectl
// port-forward` on a machine without network access.
//
// A Handler from New serves every read to whoever reaches it: the manager
// binds it to the pod's loopback address, which only `kubectl port-forward`
// reaches (the API server authorizes that). A Handler from NewPublishing
// serves reads only to a bearer token of TokenAudience whose user may get
// the run's benchmark in its namespace, and lists only those runs.
package artifactserver

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/bearer"
	"github.com/benchwright/benchwright/internal/sampler"
)

// Store is what the server reads of the artifact store (*artifacts.Store):
// objects are streamed, listings bounded.
type Store interface {
	NewReader(ctx context.Context, key string) (io.ReadCloser, error)
	ListN(ctx context.Context, prefix string, max int) ([]string, bool, error)
}

// Content security policies: the server's own pages need only their inline
// CSS; a stored file (the report above all) may also show data: images, and
// nothing may reach the network.
const (
	pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	filePolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

// Handler serves the store:
//
//	/                                       the runs, newest first, and the campaigns
//	/runs/<ns>/<Kind>/<name>/<uid>/         one run's figures, nodes and files
//	/files/<ns>/<Kind>/<name>/<uid>/<file>  a file of the layout: summary.json,
//	                                        nodes.json, samples.csv, samples.ndjson,
//	                                        report.html, job.fio, steps.json,
//	                                        raw/<rep>/<pod>.log, monitor/<rep>/<pod>.json
//	/files/<ns>/<Kind>/<name>/<uid>/monitor/ the run's monitor/ files (MonitorListing, JSON)
//	/campaigns/<ns>/<campaign>/report.<fmt> a campaign's report: html, md or csv
//	/api/history?metric=...                 the history of configurations (JSON)
//	/history?metric=...                     the same as a page: plots, change points
//
// Only GET and HEAD are allowed (405 otherwise), except PUT of a campaign's
// report on a publishing handler, for a bearer token the Authorizer accepts.
// A path not of the layout is 400, a run or file that is not there 404 (the
// listing of monitor/ is empty then): nothing outside the layout is listed
// or served.
type Handler struct {
	store  Store
	log    logr.Logger
	writer Writer
	// auth, when set, authorizes every request: reads and publishing.
	auth  Authorizer
	limit *Limiter
	// publishing bounds the reports being stored at once.
	publishing *Limiter
	index      *indexCache
	// history answers HistoryPath (nil: 404).
	history HistoryReader
	// campaignRuns gives the index each campaign's state (nil: unknown).
	campaignRuns CampaignRuns
}

// New returns a Handler of store that serves every read without asking who
// reads; log receives the store's errors.
func New(store Store, log logr.Logger) *Handler {
	return &Handler{store: store, log: log, limit: NewLimiter(MaxConcurrentRequests, QueueWait),
		publishing: NewLimiter(MaxConcurrentPublishes, QueueWait), index: &indexCache{}}
}

// NewPublishing returns a Handler of store that serves the reads auth
// allows, and stores the campaign reports PUT by the clients it lets
// publish them.
func NewPublishing(store interface {
	Store
	Writer
}, auth Authorizer, log logr.Logger) *Handler {
	h := New(store, log)
	h.writer, h.auth = store, auth
	return h
}

// WithLimiter makes h share l (the manager's listeners share one) and
// returns h.
func (h *Handler) WithLimiter(l *Limiter) *Handler {
	h.limit = l
	return h
}

type userKey struct{}

// ServeHTTP routes a request, once it has a slot and, where h authorizes, a
// known user.
func (h *Handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	hdr := rw.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cache-Control", "no-cache") // a running benchmark's files change
	hdr.Set("Content-Security-Policy", pagePolicy)
	// Every write, a 429's too, sets its own deadline: a kept-alive
	// connection still has the last request's.
	w := newDeadlineWriter(rw, time.Now())
	if !h.limit.acquire(r.Context()) {
		tooBusy(w)
		return
	}
	defer h.limit.release()
	p := r.URL.Path
	isPut := r.Method == http.MethodPut
	if r.Method != http.MethodGet && r.Method != http.MethodHead && (!isPut || !strings.HasPrefix(p, "/campaigns/")) {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: only GET and HEAD are allowed", http.StatusMethodNotAllowed)
		return
	}
	if h.auth != nil && !isPut { // publish authorizes its own way
		token, ok := bearer.Token(r.Header.Get("Authorization"))
		if !ok {
			hdr.Set("WWW-Authenticate", `Bearer realm="benchwright"`)
			http.Error(w, "reading needs a bearer token: a ServiceAccount token of audience "+TokenAudience+
				" (or read through `kubectl port-forward` to the manager's port 8082)", http.StatusUnauthorized)
			return
		}
		user, err := h.auth.Authenticate(r.Context(), token)
		if err != nil {
			h.authError(w, err)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), userKey{}, user))
	}
	switch {
	case strings.HasPrefix(p, "/campaigns/"):
		h.campaignReport(w, r, strings.TrimPrefix(p, "/campaigns/"))
	case p == "/":
		h.serveIndex(w, r)
	case strings.HasPrefix(p, "/runs/"):
		h.run(w, r, strings.TrimPrefix(p, "/runs/"))
	case strings.HasPrefix(p, "/files/"):
		h.file(w, r, strings.TrimPrefix(p, "/files/"))
	case p == HistoryPath:
		h.serveHistory(w, r)
	case p == HistoryCheckPath:
		h.serveHistoryCheck(w, r)
	case p == HistoryPagePath:
		h.serveHistoryPage(w, r)
	default:
		http.NotFound(w, r)
	}
}

// mayRead says whether the request's user may get the named object of
// resource (benchwright.io) in namespace, and answers 403 when not. It asks
// before the store is read, so a refusal says nothing of what is stored.
func (h *Handler) mayRead(w http.ResponseWriter, r *http.Request, namespace, resource, name string) bool {
	if h.auth == nil {
		return true
	}
	user, _ := r.Context().Value(userKey{}).(User)
	ok, err := h.auth.MayRead(r.Context(), user, namespace, resource, name)
	if err != nil {
		h.authError(w, err)
		return false
	}
	if !ok {
		http.Error(w, user.Username+" may not get "+resource+"."+CampaignReportsGroup+" "+name+" in namespace "+namespace, http.StatusForbidden)
	}
	return ok
}

// authError answers an Authorizer's error.
func (h *Handler) authError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrUnauthenticated):
		w.Header().Set("WWW-Authenticate", `Bearer realm="benchwright", error="invalid_token"`)
		http.Error(w, err.Error(), http.StatusUnauthorized)
	case errors.Is(err, ErrForbidden):
		http.Error(w, err.Error(), http.StatusForbidden)
	case errors.Is(err, ErrTooManyRequests):
		tooBusy(w)
	default:
		h.log.Error(err, "authorizing a request")
		http.Error(w, "authorizing the request failed", http.StatusInternalServerError)
	}
}

// file serves one file of a run with its content type, or the listing of
// its series (monitorListing).
func (h *Handler) file(w http.ResponseWriter, r *http.Request, path string) {
	if run, ok := strings.CutSuffix(path, "/"+sampler.MonitorDir+"/"); ok {
		h.monitorListing(w, r, run)
		return
	}
	loc, key, err := parseKey(path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !h.mayRead(w, r, loc.Namespace, resourceOf(loc.Kind), loc.Name) {
		return
	}
	h.serveObject(w, r, key, contentType(key))
}

// serveObject streams an object of the store: the manager holds a copy
// buffer of it, never the whole object. Ranges are served (the store's
// reader seeks).
func (h *Handler) serveObject(w http.ResponseWriter, r *http.Request, key, ctype string) {
	obj, err := h.store.NewReader(r.Context(), key)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	defer func() { _ = obj.Close() }()
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Security-Policy", filePolicy)
	if rs, ok := obj.(io.ReadSeeker); ok {
		http.ServeContent(w, r, "", time.Time{}, rs) // the modification time is not shown: Cache-Control no-cache
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	if _, err := io.Copy(w, obj); err != nil && r.Context().Err() == nil {
		h.log.V(1).Info("streaming an object", "key", key, "error", err.Error())
	}
}

// render writes a page, or a 500 when the template fails.
func (h *Handler) render(w http.ResponseWriter, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "page", data); err != nil {
		h.log.Error(err, "rendering a page")
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// storeError answers 404 for a missing artifact, 500 (logged) otherwise.
func (h *Handler) storeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, artifacts.ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if r.Context().Err() == nil {
		h.log.Error(err, "reading the artifact store", "path", r.URL.Path)
	}
	http.Error(w, "reading the artifact store failed", http.StatusInternalServerError)
}
