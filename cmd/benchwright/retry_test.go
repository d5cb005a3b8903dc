package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// A busy artifact server (429) is asked again after its Retry-After.
func TestArtifactReaderRetriesWhenBusy(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusTooManyRequests)
			return
		}
		if r.Header.Get("Authorization") != "Bearer t" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("samples"))
	}))
	defer srv.Close()
	rd := &artifactReader{server: srv.URL, token: "t", client: srv.Client()}
	data, err := rd.get(context.Background(), srv.URL+"/files/x")
	if err != nil || string(data) != "samples" || calls.Load() != 2 {
		t.Errorf("get: %q, %v after %d calls; want samples after 2", data, err, calls.Load())
	}
}
