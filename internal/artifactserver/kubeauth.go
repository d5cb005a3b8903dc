package artifactserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/ttlcache"
)

// Publishing a campaign's report is authorized as the verb create on this
// resource of the benchwright.io group, which no object backs: RBAC grants it
// like any other (the chart's campaign Role does). Reading one is get on it.
const (
	CampaignReportsGroup    = "benchwright.io"
	CampaignReportsResource = "campaignreports"
)

// TokenAudience is the audience a token must be issued for (a projected
// ServiceAccount token), to publish or to read: the pod's default token,
// which the API server accepts, is refused, and a token of this audience is
// refused by the API server.
const TokenAudience = "benchwright-artifacts"

// The caches of KubeAuthorizer. A token's review is kept a minute, whatever
// it said, under the token's SHA-256 (no token stays in memory); an allowed
// access a minute, a denied one ten seconds, so that a new RoleBinding counts
// soon. Reviews that miss the cache are rate-limited: made-up tokens, each
// new, cost the API server at most reviewRate TokenReviews a second.
const (
	tokenTTL    = time.Minute
	allowTTL    = time.Minute
	denyTTL     = 10 * time.Second
	cacheSize   = 4096
	reviewRate  = 10
	reviewBurst = 20
)

// User is who a token is, as the TokenReview said.
type User = authnv1.UserInfo

// KubeAuthorizer authorizes with the API server: a TokenReview says who the
// token is (for TokenAudience only), a SubjectAccessReview whether they may
// create campaignreports in the namespace, or get a run's benchmark. Use it
// by pointer: it keeps the answers.
type KubeAuthorizer struct {
	Client client.Client

	once      sync.Once
	users     *ttlcache.Cache[User]
	refusals  *ttlcache.Cache[string]
	decisions *ttlcache.Cache[bool]
	reviews   *rate.Limiter
	now       func() time.Time
}

func (a *KubeAuthorizer) init() {
	a.once.Do(func() {
		a.users, a.refusals, a.decisions = ttlcache.New[User](cacheSize), ttlcache.New[string](cacheSize), ttlcache.New[bool](cacheSize)
		a.reviews = rate.NewLimiter(reviewRate, reviewBurst)
		if a.now == nil {
			a.now = time.Now
		}
	})
}

// AuthorizePublish implements Authorizer.
func (a *KubeAuthorizer) AuthorizePublish(ctx context.Context, token, namespace, campaign string) error {
	user, err := a.Authenticate(ctx, token)
	if err != nil {
		return err
	}
	ok, err := a.allowed(ctx, user, authzv1.ResourceAttributes{
		Namespace: namespace, Verb: "create", Group: CampaignReportsGroup,
		Resource: CampaignReportsResource, Name: campaign,
	})
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s may not create %s.%s in namespace %s", ErrForbidden,
			user.Username, CampaignReportsResource, CampaignReportsGroup, namespace)
	}
	return nil
}

// Authenticate implements Authorizer: a TokenReview for TokenAudience.
func (a *KubeAuthorizer) Authenticate(ctx context.Context, token string) (User, error) {
	a.init()
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	now := a.now()
	if u, ok := a.users.Get(key, now); ok {
		return u, nil
	}
	if reason, ok := a.refusals.Get(key, now); ok {
		return User{}, unauthenticated(reason)
	}
	if !a.reviews.Allow() {
		return User{}, fmt.Errorf("%w: too many new tokens to review, try again shortly", ErrTooManyRequests)
	}
	review := &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token, Audiences: []string{TokenAudience}}}
	if err := a.Client.Create(ctx, review); err != nil {
		return User{}, fmt.Errorf("reviewing the token: %w", err)
	}
	reason := ""
	switch {
	case !review.Status.Authenticated:
		reason = review.Status.Error
		if reason == "" {
			reason = "the API server does not know the token"
		}
	// An authenticator that ignores audiences answers none: not enough.
	case !slices.Contains(review.Status.Audiences, TokenAudience):
		reason = fmt.Sprintf("the token is not for audience %s (its audiences: %v)", TokenAudience, review.Status.Audiences)
	}
	if reason != "" {
		a.refusals.Put(key, reason, now, tokenTTL)
		return User{}, unauthenticated(reason)
	}
	a.users.Put(key, review.Status.User, now, tokenTTL)
	return review.Status.User, nil
}

func unauthenticated(reason string) error {
	return fmt.Errorf("%w: %s (use a projected ServiceAccount token of audience %s)", ErrUnauthenticated, reason, TokenAudience)
}

// MayRead implements Authorizer: get on resource (of benchwright.io) named
// name in namespace; name "" asks for every object of it there.
func (a *KubeAuthorizer) MayRead(ctx context.Context, user User, namespace, resource, name string) (bool, error) {
	return a.allowed(ctx, user, authzv1.ResourceAttributes{
		Namespace: namespace, Verb: "get", Group: CampaignReportsGroup, Resource: resource, Name: name,
	})
}

// allowed asks a SubjectAccessReview, or the cache.
func (a *KubeAuthorizer) allowed(ctx context.Context, user User, attrs authzv1.ResourceAttributes) (bool, error) {
	a.init()
	extra := make(map[string]authzv1.ExtraValue, len(user.Extra))
	for k, v := range user.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	spec := authzv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups, Extra: extra, ResourceAttributes: &attrs,
	}
	raw, err := spec.Marshal()
	if err != nil {
		return false, err
	}
	key := string(raw)
	now := a.now()
	if ok, hit := a.decisions.Get(key, now); hit {
		return ok, nil
	}
	access := &authzv1.SubjectAccessReview{Spec: spec}
	if err := a.Client.Create(ctx, access); err != nil {
		return false, fmt.Errorf("reviewing the access: %w", err)
	}
	ttl := denyTTL
	if access.Status.Allowed {
		ttl = allowTTL
	}
	a.decisions.Put(key, access.Status.Allowed, now, ttl)
	return access.Status.Allowed, nil
}

// resourceOf is the resource a run's kind is read as: StorageBenchmark is
// storagebenchmarks, as the CRDs name them.
func resourceOf(kind string) string { return strings.ToLower(kind) + "s" }
