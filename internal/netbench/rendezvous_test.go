package netbench

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// After a retry the peer's name may still give the lost attempt's pod
// (terminating, still published): the client connects to the address that
// said its server listens, not to the first the name gives.
func TestWaitReadyUsesTheAddressThatAnswered(t *testing.T) {
	ready := newControl("plan")
	ready.set(3, stepReady)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ready, ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	// localhost gives the lost pod's address first (nothing answers there),
	// then the new one's.
	saved := lookupHost
	lookupHost = func(_ context.Context, host string) ([]string, error) {
		if host != "localhost" {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return []string{"127.0.0.2", "127.0.0.1"}, nil
	}
	defer func() { lookupHost = saved }()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addr, err := waitReady(ctx, net.JoinHostPort("localhost", port), 3, "plan")
	if err != nil || addr != "127.0.0.1" {
		t.Fatalf("waitReady: %q, %v; want 127.0.0.1, the address that answered", addr, err)
	}
}

// The control port tells whoever asks with another plan only that it
// differs: never its own plan's digest.
func TestControlDoesNotEchoItsPlan(t *testing.T) {
	c := newControl("a1b2c3d4e5f6")
	c.set(0, stepReady)
	for _, q := range []string{"step=0&plan=000000000000", "step=0&plan=", "step=0"} {
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ready?"+q, nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != http.StatusConflict || strings.Contains(string(body), "a1b2c3d4e5f6") {
			t.Errorf("%s: %d %q; want 409 without the plan", q, rec.Code, body)
		}
	}
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ready?step=0&plan=a1b2c3d4e5f6", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("the right plan: %d, want 200", rec.Code)
	}
}
