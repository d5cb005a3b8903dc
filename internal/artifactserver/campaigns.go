package artifactserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/bearer"
)

// MaxReportBytes bounds a published report: a campaign of a hundred runs with
// plots is a few MiB.
const MaxReportBytes = 64 << 20

// MaxConcurrentPublishes bounds the reports being stored at once: a body is
// streamed to the store, which holds a chunk of it per upload (gs:// 16 MiB,
// file:// 32 KiB), never the whole report.
const MaxConcurrentPublishes = 4

// Authorizer decides who may publish and read. Its errors wrap
// ErrUnauthenticated, ErrForbidden or ErrTooManyRequests, with the reason.
type Authorizer interface {
	// AuthorizePublish: may the bearer of token publish the report of
	// campaign in namespace?
	AuthorizePublish(ctx context.Context, token, namespace, campaign string) error
	// Authenticate says who the bearer of token is.
	Authenticate(ctx context.Context, token string) (User, error)
	// MayRead says whether user may get the object of resource
	// (benchwright.io) named name in namespace; "" names every one there.
	MayRead(ctx context.Context, user User, namespace, resource, name string) (bool, error)
}

// Errors of an Authorizer.
var (
	ErrUnauthenticated = errors.New("unauthenticated")
	ErrForbidden       = errors.New("forbidden")
	ErrTooManyRequests = errors.New("too many requests")
)

// Writer is what publishing writes to (*artifacts.Store). A write whose ctx
// is cancelled before r ends stores nothing.
type Writer interface {
	PutReader(ctx context.Context, key string, r io.Reader, contentType string) error
}

// campaign is one published campaign as the index lists it.
type campaign struct {
	Namespace, Name string
	Formats         []link
}

// campaignPath reads <ns>/<campaign>/report.<format> into its store key.
func campaignPath(path string) (key, format string, err error) {
	elems := strings.Split(path, "/")
	if len(elems) != 3 || !strings.HasPrefix(elems[2], "report.") {
		return "", "", errBadPath
	}
	format = strings.TrimPrefix(elems[2], "report.")
	if key, err = artifacts.CampaignReport(elems[0], elems[1], format); err != nil {
		return "", "", errBadPath
	}
	return key, format, nil
}

// campaignReport serves a published report (GET, HEAD) or publishes one (PUT).
func (h *Handler) campaignReport(w http.ResponseWriter, r *http.Request, path string) {
	key, format, err := campaignPath(path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.Method == http.MethodPut {
		h.publish(w, r, key, format)
		return
	}
	elems := strings.Split(key, "/") // ns/Campaign/name/report.format
	if !h.mayRead(w, r, elems[0], CampaignReportsResource, elems[2]) {
		return
	}
	h.serveObject(w, r, key, artifacts.CampaignFormats[format])
}

// publish stores a campaign's report when the request's bearer token may
// create campaignreports in the campaign's namespace.
func (h *Handler) publish(w http.ResponseWriter, r *http.Request, key, format string) {
	if h.auth == nil || h.writer == nil {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: this server does not accept reports", http.StatusMethodNotAllowed)
		return
	}
	token, ok := bearer.Token(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="benchwright"`)
		http.Error(w, "publishing a report needs a bearer token (a ServiceAccount's)", http.StatusUnauthorized)
		return
	}
	elems := strings.Split(key, "/") // ns/Campaign/name/report.format
	if err := h.auth.AuthorizePublish(r.Context(), token, elems[0], elems[2]); err != nil {
		h.authError(w, err)
		return
	}
	if !h.publishing.acquire(r.Context()) {
		tooBusy(w)
		return
	}
	defer h.publishing.release()
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(PublishReadTimeout))
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	body := &abortOnError{r: http.MaxBytesReader(w, r.Body, MaxReportBytes), abort: cancel}
	err := h.writer.PutReader(ctx, key, body, artifacts.CampaignFormats[format])
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(body.err, &tooBig):
		http.Error(w, "a report is at most 64 MiB", http.StatusRequestEntityTooLarge)
		return
	case body.err != nil:
		http.Error(w, "reading the report: "+body.err.Error(), http.StatusBadRequest)
		return
	case err != nil:
		h.log.Error(err, "publishing a report", "key", key)
		http.Error(w, "writing the report to the artifact store failed", http.StatusInternalServerError)
		return
	}
	h.log.Info("published a campaign report", "key", key, "bytes", body.n)
	w.WriteHeader(http.StatusCreated)
}

// abortOnError reads a request's body into an upload and, on the body's
// first error (too large, cut off), cancels the upload before returning
// the error, so that the store keeps nothing of it: an upload that saw an
// error from its reader would still be closed, storing what it had.
type abortOnError struct {
	r     io.Reader
	abort context.CancelFunc
	n     int64
	err   error
}

func (a *abortOnError) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	a.n += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		a.err = err
		a.abort()
	}
	return n, err
}

// formatRank orders a campaign's formats as the index shows them.
var formatRank = map[string]int{"html": 0, "md": 1, "csv": 2}

// campaigns groups the store's campaign report keys, by namespace and name.
func campaigns(keys []string) []campaign {
	byName := map[[2]string]*campaign{}
	for _, key := range keys {
		elems := strings.Split(key, "/")
		if len(elems) != 4 || elems[1] != artifacts.CampaignKind {
			continue
		}
		if _, format, err := campaignPath(elems[0] + "/" + elems[2] + "/" + elems[3]); err == nil {
			id := [2]string{elems[0], elems[2]}
			c := byName[id]
			if c == nil {
				c = &campaign{Namespace: elems[0], Name: elems[2]}
				byName[id] = c
			}
			href := "campaigns/" + url.PathEscape(elems[0]) + "/" + url.PathEscape(elems[2]) + "/report." + format
			c.Formats = append(c.Formats, link{Name: format, Href: href})
		}
	}
	out := make([]campaign, 0, len(byName))
	for _, c := range byName {
		sort.Slice(c.Formats, func(i, j int) bool { return formatRank[c.Formats[i].Name] < formatRank[c.Formats[j].Name] })
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}
