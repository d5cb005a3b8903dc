package integration

import (
	"context"
	"errors"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/benchwright/benchwright/internal/artifactserver"
)

// TestPublishAuthorization asks the real API server: a ServiceAccount's token
// of the artifact server's audience may publish a campaign report only where
// RBAC grants create on campaignreports; the account's token for the API
// server (a pod's default one) and a made-up token not at all.
func TestPublishAuthorization(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "publish-")
	other := testNamespace(t, "other-")
	clientset := kubernetes.NewForConfigOrDie(cfg)

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "campaign", Namespace: ns}}
	if err := k8sClient.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "publish-reports", Namespace: ns},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{artifactserver.CampaignReportsGroup}, Resources: []string{artifactserver.CampaignReportsResource}, Verbs: []string{"create"},
		}},
	}
	if err := k8sClient.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "publish-reports", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns}},
	}
	if err := k8sClient.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	tokenFor := func(audiences ...string) string {
		tr, err := clientset.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name,
			&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{Audiences: audiences}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	token := tokenFor(artifactserver.TokenAudience)

	auth := artifactserver.KubeAuthorizer{Client: k8sClient}
	if err := auth.AuthorizePublish(ctx, token, ns, "s0-x7k2p"); err != nil {
		t.Errorf("the campaign's ServiceAccount in its namespace: %v, want allowed", err)
	}
	if err := auth.AuthorizePublish(ctx, token, other, "s0-x7k2p"); !errors.Is(err, artifactserver.ErrForbidden) {
		t.Errorf("the campaign's ServiceAccount in another namespace: %v, want ErrForbidden", err)
	}
	if err := auth.AuthorizePublish(ctx, "not-a-token", ns, "s0-x7k2p"); !errors.Is(err, artifactserver.ErrUnauthenticated) {
		t.Errorf("a made-up token: %v, want ErrUnauthenticated", err)
	}
	// The API server's audience (what a pod mounts by default): refused, so a
	// token that reaches the artifact server cannot be used on the API server.
	if err := auth.AuthorizePublish(ctx, tokenFor(), ns, "s0-x7k2p"); !errors.Is(err, artifactserver.ErrUnauthenticated) {
		t.Errorf("a token of the API server's audience: %v, want ErrUnauthenticated", err)
	}
	if err := auth.AuthorizePublish(ctx, tokenFor("somewhere-else"), ns, "s0-x7k2p"); !errors.Is(err, artifactserver.ErrUnauthenticated) {
		t.Errorf("a token of another audience: %v, want ErrUnauthenticated", err)
	}
}
