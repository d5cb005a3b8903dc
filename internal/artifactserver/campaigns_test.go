package artifactserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
)

// tokens is an Authorizer that knows tokens by the namespaces they may publish in.
type tokens map[string]string

func (t tokens) AuthorizePublish(_ context.Context, token, namespace, _ string) error {
	ns, ok := t[token]
	switch {
	case !ok:
		return fmt.Errorf("%w: unknown token", ErrUnauthenticated)
	case ns != namespace:
		return fmt.Errorf("%w: not in %s", ErrForbidden, namespace)
	}
	return nil
}

func (t tokens) Authenticate(_ context.Context, token string) (User, error) {
	if _, ok := t[token]; !ok {
		return User{}, fmt.Errorf("%w: unknown token", ErrUnauthenticated)
	}
	return User{Username: token}, nil
}

func (t tokens) MayRead(_ context.Context, user User, namespace, _, _ string) (bool, error) {
	return t[user.Username] == namespace, nil
}

// getAs is get with a bearer token.
func getAs(t *testing.T, h http.Handler, target, token string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Header.Set("Authorization", "Bearer "+token)
	h.ServeHTTP(w, r)
	return w
}

func put(h http.Handler, target, token, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPut, target, strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	h.ServeHTTP(w, r)
	return w
}

func TestPublishCampaignReport(t *testing.T) {
	store, _ := newStore(t)
	h := NewPublishing(store, tokens{"wf-token": "perf"}, testr.New(t))
	const target = "/campaigns/perf/s0-machine-types-x7k2p/report.html"
	report := "<!DOCTYPE html><title>S0: c2 vs c2d vs c3</title>"

	for _, c := range []struct {
		name, target, token string
		want                int
	}{
		{"no token", target, "", http.StatusUnauthorized},
		{"unknown token", target, "stolen", http.StatusUnauthorized},
		{"another namespace", "/campaigns/hpc/x/report.html", "wf-token", http.StatusForbidden},
		{"not a format", "/campaigns/perf/x/report.pdf", "wf-token", http.StatusBadRequest},
		{"escape", "/campaigns/perf/../report.html", "wf-token", http.StatusBadRequest},
		{"deeper path", "/campaigns/perf/x/y/report.html", "wf-token", http.StatusBadRequest},
	} {
		if w := put(h, c.target, c.token, report); w.Code != c.want {
			t.Errorf("%s: PUT %s = %d, want %d (%s)", c.name, c.target, w.Code, c.want, w.Body)
		}
	}
	if w := getAs(t, h, target, "wf-token"); w.Code != http.StatusNotFound {
		t.Fatalf("a refused report was stored: GET = %d", w.Code)
	}

	if w := put(h, target, "wf-token", report); w.Code != http.StatusCreated {
		t.Fatalf("PUT = %d, want 201 (%s)", w.Code, w.Body)
	}
	if w := put(h, strings.Replace(target, ".html", ".md", 1), "wf-token", "# S0"); w.Code != http.StatusCreated {
		t.Fatalf("PUT md = %d, want 201 (%s)", w.Code, w.Body)
	}
	if w := get(t, h, http.MethodGet, target); w.Code != http.StatusUnauthorized {
		t.Errorf("GET of a published report without a token = %d, want 401", w.Code)
	}
	w := getAs(t, h, target, "wf-token")
	if w.Code != http.StatusOK || w.Body.String() != report || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET = %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("a published report is served without the no-network policy: %q", csp)
	}

	index := getAs(t, h, "/", "wf-token").Body.String()
	if strings.Contains(index, "osu-lat") {
		t.Errorf("the index shows a run of a namespace the token may not read\n%s", index)
	}
	for _, want := range []string{
		"<h2>Campaigns</h2>", "s0-machine-types-x7k2p",
		`href="campaigns/perf/s0-machine-types-x7k2p/report.html">html</a> · <a href="campaigns/perf/s0-machine-types-x7k2p/report.md">md</a>`,
		`href="runs/perf/StorageBenchmark/c3-randread/0b6c-11/"`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index lacks %q\n%s", want, index)
		}
	}
}

func TestReadOnlyHandlerRefusesReports(t *testing.T) {
	store, _ := newStore(t)
	w := put(New(store, testr.New(t)), "/campaigns/perf/x/report.html", "any", "<html>")
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("PUT on a read-only handler = %d (Allow %q), want 405", w.Code, w.Header().Get("Allow"))
	}
	if w := put(NewPublishing(store, tokens{"t": "perf"}, testr.New(t)), "/files/perf/StorageBenchmark/c3-randread/0b6c-11/report.html", "t", "x"); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("PUT of a run's file = %d, want 405: only campaign reports are published", w.Code)
	}
}

func TestPublishRefusesOversizedReports(t *testing.T) {
	store, _ := newStore(t)
	h := NewPublishing(store, tokens{"t": "perf"}, testr.New(t))
	w := put(h, "/campaigns/perf/big/report.csv", "t", strings.Repeat("x", MaxReportBytes+1))
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("PUT of %d bytes = %d, want 413", MaxReportBytes+1, w.Code)
	}
}

// endless is an endless body of one byte, made as it is read.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// 16 campaign tokens uploading oversized reports at once: each body is
// streamed to the store and refused as it passes 64 MiB, so the manager's
// heap grows by a few chunks, not by 16 reports (io.ReadAll held up to
// 1 GiB against the chart's 512 Mi limit); nothing of them is stored.
func TestPublishingOversizedReportsInParallelKeepsTheHeapBounded(t *testing.T) {
	store, _ := newStore(t)
	srv := httptest.NewServer(NewPublishing(store, tokens{"t": "perf"}, testr.New(t)))
	defer srv.Close()

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	const parallel = 16
	var wg sync.WaitGroup
	codes := make([]int, parallel)
	for i := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := io.LimitReader(endless{}, MaxReportBytes+1<<20)
			req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/campaigns/perf/big-%d/report.html", srv.URL, i), body)
			req.Header.Set("Authorization", "Bearer t")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				codes[i] = resp.StatusCode
				_ = resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	close(done)
	<-sampled

	grew := int64(peak.Load()) - int64(before.HeapAlloc)
	t.Logf("heap before %d MiB, peak %d MiB during %d parallel %d MiB uploads", before.HeapAlloc>>20, peak.Load()>>20, parallel, (MaxReportBytes+1<<20)>>20)
	if grew > 32<<20 {
		t.Errorf("the heap grew by %d MiB during the uploads, want under 32", grew>>20)
	}
	for i, code := range codes {
		if code != 0 && code != http.StatusRequestEntityTooLarge && code != http.StatusTooManyRequests {
			t.Errorf("upload %d = %d, want 413 (or 429)", i, code)
		}
		if ok, err := store.Exists(context.Background(), fmt.Sprintf("perf/Campaign/big-%d/report.html", i)); err != nil || ok {
			t.Errorf("upload %d: stored %t (%v), want nothing", i, ok, err)
		}
	}
	// A report within the bound is still published whole.
	if w := put(NewPublishing(store, tokens{"t": "perf"}, testr.New(t)), "/campaigns/perf/small/report.md", "t", "# S0"); w.Code != http.StatusCreated {
		t.Errorf("a small report after them = %d", w.Code)
	}
}
