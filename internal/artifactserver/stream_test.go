package artifactserver

import (
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/go-logr/logr/testr"

	"github.com/benchwright/benchwright/internal/artifacts"
)

// bigObject stores size random bytes as fioRun's samples.ndjson.
func bigObject(t *testing.T, store *artifacts.Store, size int) string {
	t.Helper()
	key, err := fioRun.SamplesNDJSON()
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, size)
	_, _ = rand.Read(data)
	if err := store.Put(context.Background(), key, data, "application/x-ndjson"); err != nil {
		t.Fatal(err)
	}
	return "/files/" + key
}

// A file is streamed: serving 32 MiB allocates a small part of it, where
// reading the object whole allocated all of it, per reader.
func TestFilesAreStreamed(t *testing.T) {
	store, _ := newStore(t)
	const size = 32 << 20
	path := bigObject(t, store, size)
	srv := httptest.NewServer(New(store, testr.New(t)))
	defer srv.Close()

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	runtime.ReadMemStats(&after)
	if err != nil || n != size || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %d bytes, %v", path, resp.Status, n, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size/4 {
		t.Errorf("serving %d MiB allocated %d MiB: the object was read whole, not streamed", size>>20, got>>20)
	}
}
