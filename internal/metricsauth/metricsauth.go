// Package metricsauth guards the manager's /metrics as controller-runtime's
// filters.WithAuthenticationAndAuthorization does: a client's bearer token
// must pass a TokenReview, and its user a SubjectAccessReview of the verb on
// the path (get /metrics: the chart's ClusterRole <name>-metrics-reader).
// Answers are cached as that filter caches them. It takes the two typed
// clients alone: that filter's k8s.io/apiserver authenticator and authorizer
// factories linked CEL and the API server's configuration types, 6.8 MB of the
// manager's binary, which stays resident.
package metricsauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	authnclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authzclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/benchwright/benchwright/internal/bearer"
	"github.com/benchwright/benchwright/internal/ttlcache"
)

// The TTLs of controller-runtime's filter: a token's review for a minute, an
// allowed access for five, a denied one for thirty seconds.
const (
	tokenTTL = time.Minute
	allowTTL = 5 * time.Minute
	denyTTL  = 30 * time.Second
	// reviewTimeout bounds one review, as the filter's TokenAccessReviewTimeout.
	reviewTimeout = 10 * time.Second
	// cacheSize bounds each cache: a client sending made-up tokens fills it
	// with refusals, never the manager's memory.
	cacheSize = 1024
)

// retry is the filter's backoff on a failed review (k8s.io/apiserver's
// DefaultAuthWebhookRetryBackoff).
var retry = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}

// WithAuthenticationAndAuthorization is a metricsserver.Options.FilterProvider.
func WithAuthenticationAndAuthorization(config *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	authn, err := authnclient.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	authz, err := authzclient.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	g := &guard{
		tokens: authn.TokenReviews(), access: authz.SubjectAccessReviews(),
		users: ttlcache.New[*authnv1.TokenReviewStatus](cacheSize), decisions: ttlcache.New[bool](cacheSize),
		now: time.Now,
	}
	return func(log logr.Logger, next http.Handler) (http.Handler, error) {
		return g.handler(log, next), nil
	}, nil
}

// guard holds the review clients and the cached answers.
type guard struct {
	tokens    authnclient.TokenReviewInterface
	access    authzclient.SubjectAccessReviewInterface
	users     *ttlcache.Cache[*authnv1.TokenReviewStatus]
	decisions *ttlcache.Cache[bool]
	now       func() time.Time
}

func (g *guard) handler(log logr.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		token, ok := bearer.Token(req.Header.Get("Authorization"))
		if !ok {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		review, err := g.review(req.Context(), token)
		if err != nil {
			log.Error(err, "Authentication failed")
			http.Error(w, "Authentication failed", http.StatusInternalServerError)
			return
		}
		if !review.Authenticated {
			log.V(4).Info("Authentication failed", "reason", review.Error)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		user := review.User.Username
		allowed, err := g.authorize(req.Context(), review.User, strings.ToLower(req.Method), req.URL.Path)
		if err != nil {
			msg := fmt.Sprintf("Authorization for user %s failed", user)
			log.Error(err, msg)
			http.Error(w, msg, http.StatusInternalServerError)
			return
		}
		if !allowed {
			msg := fmt.Sprintf("Authorization denied for user %s", user)
			log.V(4).Info(msg)
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// review is the TokenReview of token, cached for tokenTTL whatever it says.
// The cache keys by the token's hash: no token stays in memory.
func (g *guard) review(ctx context.Context, token string) (*authnv1.TokenReviewStatus, error) {
	key := fmt.Sprintf("%x", sha256.Sum256([]byte(token)))
	if status, ok := g.users.Get(key, g.now()); ok {
		return status, nil
	}
	var status *authnv1.TokenReviewStatus
	err := withRetry(ctx, func(ctx context.Context) error {
		r, err := g.tokens.Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
		if err == nil {
			status = &r.Status
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	g.users.Put(key, status, g.now(), tokenTTL)
	return status, nil
}

// authorize says whether user may verb the non-resource path, cached for
// allowTTL if so, denyTTL if not.
func (g *guard) authorize(ctx context.Context, user authnv1.UserInfo, verb, path string) (bool, error) {
	extra := make(map[string]authzv1.ExtraValue, len(user.Extra))
	for k, v := range user.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	spec := authzv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups, Extra: extra,
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
	}
	key, err := spec.Marshal()
	if err != nil {
		return false, err
	}
	if allowed, ok := g.decisions.Get(string(key), g.now()); ok {
		return allowed, nil
	}
	var allowed bool
	err = withRetry(ctx, func(ctx context.Context) error {
		r, err := g.access.Create(ctx, &authzv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
		if err == nil {
			allowed = r.Status.Allowed
		}
		return err
	})
	if err != nil {
		return false, err
	}
	ttl := denyTTL
	if allowed {
		ttl = allowTTL
	}
	g.decisions.Put(string(key), allowed, g.now(), ttl)
	return allowed, nil
}

// withRetry calls review, each call bounded by reviewTimeout, again after a
// failure the API server may not repeat (a lost connection, a 5xx, a 429),
// per retry.
func withRetry(ctx context.Context, review func(context.Context) error) error {
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, retry, func(ctx context.Context) (bool, error) {
		callCtx, cancel := context.WithTimeout(ctx, reviewTimeout)
		defer cancel()
		last = review(callCtx)
		if last == nil {
			return true, nil
		}
		return false, retriable(last)
	})
	if last != nil {
		return last
	}
	return err
}

// retriable is nil for an error worth another try, the error itself when
// trying again cannot help (the API server refused the review as such).
func retriable(err error) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return nil // the connection, not the answer
	}
	code := status.Status().Code
	if code == http.StatusTooManyRequests || code >= http.StatusInternalServerError {
		return nil
	}
	return err
}
