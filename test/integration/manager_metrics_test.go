package integration

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/benchwright/benchwright/test/util"
)

// checkMetricsNeedAReader: the manager's metrics at url (HTTPS, self-signed)
// refuse a request without a token (401) and a token without the right (403),
// and serve a token bound to config/rbac/metrics_reader_role.yaml, the
// chart's <name>-metrics-reader.
func checkMetricsNeedAReader(ctx context.Context, t *testing.T, url string) {
	t.Helper()
	ns := testNamespace(t, "metrics-")
	data, err := os.ReadFile(filepath.Join(util.RepoRoot(), "config/rbac/metrics_reader_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	role.Name = ns + "-reader"
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: ns}},
	}
	if err := k8sClient.Create(ctx, &role); err != nil {
		t.Fatal(err)
	}
	if err := k8sClient.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k8sClient.Delete(context.Background(), binding)
		_ = k8sClient.Delete(context.Background(), &role)
	})
	token := func(sa string) string { return serviceAccountToken(ctx, t, ns, sa) }
	// The certificate is self-signed, as kubebuilder's: Prometheus skips verification too.
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed
	get := func(token string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(body)
	}
	util.WaitFor(t, 60*time.Second, "metrics served over HTTPS", func() (bool, string) {
		code, body := get("")
		return code != 0, body
	})
	if code, body := get(""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d %.200s, want 401", code, body)
	}
	if code, body := get(token("nobody")); code != http.StatusForbidden {
		t.Errorf("a token without metrics-reader: %d %.200s, want 403", code, body)
	}
	if code, body := get(token("prometheus")); code != http.StatusOK || !strings.Contains(body, "controller_runtime_reconcile_total") {
		t.Errorf("a metrics-reader token: %d %.200s, want 200 and the metrics", code, body)
	}
	// A token the TokenReview rejects: 401 (controller-runtime's filter said 500).
	if code, _ := get("not-a-token"); code != http.StatusUnauthorized {
		t.Errorf("a made-up token: %d, want 401", code)
	}
	if strings.HasPrefix(url, "https://") {
		plain := "http://" + strings.TrimPrefix(url, "https://")
		if resp, err := http.Get(plain); err == nil { //nolint:noctx // a refused plain request
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Errorf("metrics over plain HTTP: %d", resp.StatusCode)
			}
		}
	}
}

// serviceAccountToken creates service account sa in ns and returns a token
// for it.
func serviceAccountToken(ctx context.Context, t *testing.T, ns, sa string) string {
	t.Helper()
	if err := k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}}); err != nil {
		t.Fatal(err)
	}
	tr, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authnv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}
