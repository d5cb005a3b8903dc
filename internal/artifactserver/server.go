// Package artifactserver serves the artifact store read-only over HTTP: an
// index of the runs, a page per run with its figures and files, and the files
// themselves. Pages are self-contained (inline CSS, no scripts, nothing
// fetched from elsewhere), so they work through `kubectl port-forward` on a
// machine without network access.
package artifactserver

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/benchwright/benchwright/internal/artifacts"
)

// Store is what the server reads of the artifact store (*artifacts.Store).
type Store interface {
	Get(ctx context.Context, key string) ([]byte, error)
	List(ctx context.Context, prefix string) ([]string, error)
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
//	                                        raw/<rep>/<pod>.log
//	/campaigns/<ns>/<campaign>/report.<fmt> a campaign's report: html, md or csv
//
// Only GET and HEAD are allowed (405 otherwise), except PUT of a campaign's
// report on a publishing handler, for a bearer token the Authorizer accepts.
// A path not of the layout is 400, a run or file that is not there 404:
// nothing outside the layout is listed or served.
type Handler struct {
	store  Store
	log    logr.Logger
	writer Writer
	auth   Authorizer
}

// New returns a read-only Handler of store; log receives the store's errors.
func New(store Store, log logr.Logger) *Handler {
	return &Handler{store: store, log: log}
}

// NewPublishing returns a Handler of store that also stores campaign reports
// PUT by the clients auth lets publish them.
func NewPublishing(store interface {
	Store
	Writer
}, auth Authorizer, log logr.Logger) *Handler {
	return &Handler{store: store, writer: store, auth: auth, log: log}
}

// ServeHTTP routes a request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cache-Control", "no-cache") // a running benchmark's files change
	hdr.Set("Content-Security-Policy", pagePolicy)
	p := r.URL.Path
	if campaign, ok := strings.CutPrefix(p, "/campaigns/"); ok && (r.Method == http.MethodPut || r.Method == http.MethodGet || r.Method == http.MethodHead) {
		h.campaignReport(w, r, campaign)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: only GET and HEAD are allowed", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case p == "/":
		h.index(w, r)
	case strings.HasPrefix(p, "/runs/"):
		h.run(w, r, strings.TrimPrefix(p, "/runs/"))
	case strings.HasPrefix(p, "/files/"):
		h.file(w, r, strings.TrimPrefix(p, "/files/"))
	default:
		http.NotFound(w, r)
	}
}

// file serves one file of a run with its content type.
func (h *Handler) file(w http.ResponseWriter, r *http.Request, path string) {
	_, key, err := parseKey(path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	data, err := h.store.Get(r.Context(), key)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", contentType(key))
	w.Header().Set("Content-Security-Policy", filePolicy)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data)) // the store gives no modification time
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
