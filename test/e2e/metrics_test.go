//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var metricsToken struct {
	once  sync.Once
	token string
	err   error
}

// getMetrics GETs the manager's metrics (HTTPS, self-signed) with the token of
// a ServiceAccount bound to the chart's ClusterRole benchwright-metrics-reader,
// as Prometheus would: the manager serves them to nobody else.
func getMetrics(t *testing.T) *http.Response {
	t.Helper()
	metricsToken.once.Do(func() { metricsToken.token, metricsToken.err = readerToken(context.Background()) })
	if metricsToken.err != nil {
		t.Fatalf("a metrics-reader token: %v", metricsToken.err)
	}
	req, err := http.NewRequest(http.MethodGet, env["MANAGER_METRICS"], nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+metricsToken.token)
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("manager metrics: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		t.Fatalf("manager metrics: %s", resp.Status)
	}
	return resp
}

// readerToken makes (or finds) the ServiceAccount e2e-metrics in the
// manager's namespace, binds it to the metrics reader and asks for a token.
func readerToken(ctx context.Context) (string, error) {
	// MANAGER_SERVICE_ACCOUNT is system:serviceaccount:NAMESPACE:NAME.
	ns := strings.Split(env["MANAGER_SERVICE_ACCOUNT"], ":")[2]
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "e2e-metrics", Namespace: ns}}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-metrics-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "benchwright-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns}},
	}
	for _, o := range []client.Object{sa, binding} {
		if err := k8s.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", err
		}
	}
	tr, err := clientset.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name,
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return tr.Status.Token, nil
}
