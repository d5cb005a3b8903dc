package integration

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authzv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/benchwright/benchwright/internal/metricsauth"
	"github.com/benchwright/benchwright/test/util"
)

// TestMetricsAuthAsControllerRuntimesFilter: the manager's metrics guard
// answers as controller-runtime's filter did, with the real API server's
// TokenReviews and SubjectAccessReviews: 401 without a token or with a
// made-up one (that filter said 500), 403 to a token without metrics-reader,
// 200 to one with it; and it keeps an allowed access for minutes and a denied
// one for seconds, so a revoked or new binding takes a while to count.
func TestMetricsAuthAsControllerRuntimesFilter(t *testing.T) {
	ctx := testContext(t)
	ns := testNamespace(t, "metricsauth-")
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	filter, err := metricsauth.WithAuthenticationAndAuthorization(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	guarded, err := filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("metrics"))
	}))
	if err != nil {
		t.Fatal(err)
	}
	get := func(token string) int {
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		guarded.ServeHTTP(rec, req)
		return rec.Code
	}

	token := func(sa string) string { return serviceAccountToken(ctx, t, ns, sa) }
	reader, nobody := token("reader"), token("nobody")
	role := metricsReaderRole(ctx, t, ns)
	bind := func(sa string) *rbacv1.ClusterRoleBinding {
		b := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role + "-" + sa},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}},
		}
		if err := k8sClient.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), b) })
		waitForMetricsAccess(ctx, t, ns, sa, true)
		return b
	}
	readerBinding := bind("reader")

	if code := get(""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code := get("not-a-token"); code != http.StatusUnauthorized {
		t.Errorf("a made-up token: %d, want 401", code)
	}
	if code := get(nobody); code != http.StatusForbidden {
		t.Errorf("a token without metrics-reader: %d, want 403", code)
	}
	if code := get(reader); code != http.StatusOK {
		t.Errorf("a metrics-reader token: %d, want 200", code)
	}

	// Revoked, the reader is still allowed (for 5 minutes); bound, nobody is
	// still refused (for 30 seconds).
	if err := k8sClient.Delete(ctx, readerBinding); err != nil {
		t.Fatal(err)
	}
	waitForMetricsAccess(ctx, t, ns, "reader", false)
	bind("nobody")
	if code := get(reader); code != http.StatusOK {
		t.Errorf("a metrics-reader token just revoked: %d, want 200 (the allowed access cached)", code)
	}
	if code := get(nobody); code != http.StatusForbidden {
		t.Errorf("a token just bound to metrics-reader: %d, want 403 (the denied access cached)", code)
	}
}

// metricsReaderRole creates config/rbac/metrics_reader_role.yaml (the chart's
// <name>-metrics-reader) under a name of its own and returns the name.
func metricsReaderRole(ctx context.Context, t *testing.T, ns string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(util.RepoRoot(), "config/rbac/metrics_reader_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	role.Name = ns + "-reader"
	if err := k8sClient.Create(ctx, &role); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), &role) })
	return role.Name
}

// waitForMetricsAccess waits until the API server's RBAC says whether the
// ServiceAccount may get /metrics, so that a review after it sees the change.
func waitForMetricsAccess(ctx context.Context, t *testing.T, ns, sa string, allowed bool) {
	t.Helper()
	user := "system:serviceaccount:" + ns + ":" + sa
	util.WaitFor(t, 30*time.Second, user+" may get /metrics: "+map[bool]string{true: "yes", false: "no"}[allowed], func() (bool, string) {
		sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns},
			NonResourceAttributes: &authzv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		}}
		if err := k8sClient.Create(ctx, sar); err != nil {
			return false, err.Error()
		}
		return sar.Status.Allowed == allowed, sar.Status.Reason
	})
}
