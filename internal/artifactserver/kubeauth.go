package artifactserver

import (
	"context"
	"fmt"
	"slices"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Publishing a campaign's report is authorized as the verb create on this
// resource of the benchwright.io group, which no object backs: RBAC grants it
// like any other (the chart's campaign Role does).
const (
	CampaignReportsGroup    = "benchwright.io"
	CampaignReportsResource = "campaignreports"
)

// TokenAudience is the audience a publishing token must be issued for (a
// projected ServiceAccount token): the pod's default token, which the API
// server accepts, is refused, and a publishing token is refused by the API
// server.
const TokenAudience = "benchwright-artifacts"

// KubeAuthorizer authorizes with the API server: a TokenReview says who the
// token is (for TokenAudience only), a SubjectAccessReview whether they may
// create campaignreports in the namespace.
type KubeAuthorizer struct {
	Client client.Client
}

// AuthorizePublish implements Authorizer.
func (a KubeAuthorizer) AuthorizePublish(ctx context.Context, token, namespace, campaign string) error {
	review := &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token, Audiences: []string{TokenAudience}}}
	if err := a.Client.Create(ctx, review); err != nil {
		return fmt.Errorf("reviewing the token: %w", err)
	}
	if !review.Status.Authenticated {
		reason := review.Status.Error
		if reason == "" {
			reason = "the API server does not know the token"
		}
		return fmt.Errorf("%w: %s (publish with a projected ServiceAccount token of audience %s)", ErrUnauthenticated, reason, TokenAudience)
	}
	// An authenticator that ignores audiences answers none: not enough.
	if !slices.Contains(review.Status.Audiences, TokenAudience) {
		return fmt.Errorf("%w: the token is not for audience %s (its audiences: %v)", ErrUnauthenticated, TokenAudience, review.Status.Audiences)
	}
	user := review.Status.User
	extra := make(map[string]authzv1.ExtraValue, len(user.Extra))
	for k, v := range user.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	access := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups, Extra: extra,
		ResourceAttributes: &authzv1.ResourceAttributes{
			Namespace: namespace, Verb: "create", Group: CampaignReportsGroup,
			Resource: CampaignReportsResource, Name: campaign,
		},
	}}
	if err := a.Client.Create(ctx, access); err != nil {
		return fmt.Errorf("reviewing the access: %w", err)
	}
	if !access.Status.Allowed {
		return fmt.Errorf("%w: %s may not create %s.%s in namespace %s", ErrForbidden,
			user.Username, CampaignReportsResource, CampaignReportsGroup, namespace)
	}
	return nil
}
