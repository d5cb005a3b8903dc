package artifactserver

import (
	"context"
	"fmt"

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

// KubeAuthorizer authorizes with the API server: a TokenReview says who the
// token is, a SubjectAccessReview whether they may create campaignreports in
// the namespace.
type KubeAuthorizer struct {
	Client client.Client
}

// AuthorizePublish implements Authorizer.
func (a KubeAuthorizer) AuthorizePublish(ctx context.Context, token, namespace, campaign string) error {
	review := &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}
	if err := a.Client.Create(ctx, review); err != nil {
		return fmt.Errorf("reviewing the token: %w", err)
	}
	if !review.Status.Authenticated {
		reason := review.Status.Error
		if reason == "" {
			reason = "the API server does not know the token"
		}
		return fmt.Errorf("%w: %s", ErrUnauthenticated, reason)
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
