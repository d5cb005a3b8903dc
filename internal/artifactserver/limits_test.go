package artifactserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	authnv1 "k8s.io/api/authentication/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/benchwright/benchwright/internal/artifacts"
)

// Requests beyond the cap wait, then get 429 with Retry-After; a slot that
// frees up lets the next one in.
func TestConcurrentRequestsAreCapped(t *testing.T) {
	store, _ := newStore(t)
	path := bigObject(t, store, 32<<20)
	srv := httptest.NewServer(New(store, testr.New(t)).WithLimiter(NewLimiter(1, 100*time.Millisecond)))
	defer srv.Close()

	// A reader that takes nothing holds the only slot.
	slow, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a request beyond the cap: %s (Retry-After %q), want 429 with Retry-After", resp.Status, resp.Header.Get("Retry-After"))
	}
	_, _ = io.Copy(io.Discard, slow.Body)
	_ = slow.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the slow reader finished: %s, want 200", resp.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countingStore counts the listings of the whole store.
type countingStore struct {
	*artifacts.Store
	lists atomic.Int32
}

func (c *countingStore) ListN(ctx context.Context, prefix string, max int) ([]string, bool, error) {
	if prefix == "" {
		c.lists.Add(1)
	}
	return c.Store.ListN(ctx, prefix, max)
}

// The index comes from a cached listing: ten requests, one listing.
func TestIndexIsCached(t *testing.T) {
	store, _ := newStore(t)
	cs := &countingStore{Store: store}
	h := New(cs, testr.New(t))
	for range 10 {
		if w := get(t, h, http.MethodGet, "/"); w.Code != http.StatusOK {
			t.Fatalf("GET / = %d", w.Code)
		}
	}
	if n := cs.lists.Load(); n != 1 {
		t.Errorf("10 index requests listed the store %d times, want 1", n)
	}
}

// The listing behind the index is bounded.
func TestListNStops(t *testing.T) {
	store, _ := newStore(t)
	all, err := store.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	keys, truncated, err := store.ListN(context.Background(), "", 3)
	if err != nil || len(keys) != 3 || !truncated {
		t.Errorf("ListN(3) of %d keys: %d keys, truncated %v, %v", len(all), len(keys), truncated, err)
	}
	keys, truncated, err = store.ListN(context.Background(), "", len(all))
	if err != nil || len(keys) != len(all) || truncated {
		t.Errorf("ListN(%d) of %d keys: %d keys, truncated %v, %v", len(all), len(all), len(keys), truncated, err)
	}
}

// A token's review is cached (by its hash); reviews of new tokens are
// rate-limited, so made-up tokens cost the API server a bounded number.
func TestTokenReviewsAreCachedAndRateLimited(t *testing.T) {
	var reviews atomic.Int32
	c := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		Create: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.CreateOption) error {
			tr, ok := obj.(*authnv1.TokenReview)
			if !ok {
				return errors.New("unexpected create")
			}
			reviews.Add(1)
			if tr.Spec.Token == "good" {
				tr.Status = authnv1.TokenReviewStatus{Authenticated: true, Audiences: []string{TokenAudience}, User: authnv1.UserInfo{Username: "reader"}}
			}
			return nil
		},
	}).Build()
	a := &KubeAuthorizer{Client: c}
	ctx := context.Background()
	for range 5 {
		if u, err := a.Authenticate(ctx, "good"); err != nil || u.Username != "reader" {
			t.Fatalf("the good token: %v, %v", u, err)
		}
		if _, err := a.Authenticate(ctx, "junk"); !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("a junk token: %v, want unauthenticated", err)
		}
	}
	if n := reviews.Load(); n != 2 {
		t.Errorf("5 requests each of two tokens cost %d TokenReviews, want 2", n)
	}
	limited := 0
	for i := range 200 {
		_, err := a.Authenticate(ctx, "junk-"+string(rune('a'+i%26))+time.Now().String())
		if errors.Is(err, ErrTooManyRequests) {
			limited++
		}
	}
	if n := reviews.Load(); n > 2+reviewBurst+5 || limited == 0 {
		t.Errorf("200 made-up tokens cost %d TokenReviews (%d refused as too many), want at most about %d", n-2, limited, reviewBurst)
	}
}
