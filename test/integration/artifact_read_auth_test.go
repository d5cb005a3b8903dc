package integration

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
)

// TestArtifactReadsNeedTheBenchmarksGet asks the real API server: over the
// authorizing listener (the manager's TLS port), a read needs a token of the
// artifact server's audience whose user may get the run's benchmark in its
// namespace. Without a token, with the API server's own token or with a
// made-up one: 401; another namespace's raw log, steps.json, run page or
// campaign report: 403; the index lists only the runs of the namespaces the
// user may read. The plain listener (loopback, `kubectl port-forward`)
// still serves every read.
func TestArtifactReadsNeedTheBenchmarksGet(t *testing.T) {
	ctx := context.Background()
	mine := testNamespace(t, "reads-")
	theirs := testNamespace(t, "secret-")
	clientset := kubernetes.NewForConfigOrDie(cfg)

	store, err := artifacts.Open(ctx, "file://"+filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	runIn := func(ns, kind, name, uid string) artifacts.Location {
		loc := artifacts.Location{Namespace: ns, Kind: kind, Name: name, UID: uid}
		run := runstore.Run{Store: store, Location: loc, Started: time.Now(), Finished: time.Now()}
		samples := []results.Sample{{Test: "randread", Metric: "read_iops", Unit: "IOPS", Value: 1000}}
		if _, err := run.AddRepetition(ctx, 0, samples, nil, results.SummarizeOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := run.PutRawLog(ctx, 0, "bench-0", []byte("MPI env: SECRET=hunter2\n")); err != nil {
			t.Fatal(err)
		}
		if err := run.PutSteps(ctx, []byte(`{"env":{"SECRET":"hunter2"}}`)); err != nil {
			t.Fatal(err)
		}
		return loc
	}
	ours := runIn(mine, "StorageBenchmark", "fio-ours", "u-ours")
	secret := runIn(theirs, "MPIBenchmark", "osu-theirs", "u-theirs")
	for _, ns := range []string{mine, theirs} {
		key, _ := artifacts.CampaignReport(ns, "s0", "md")
		if err := store.Put(ctx, key, []byte("# report"), "text/markdown"); err != nil {
			t.Fatal(err)
		}
	}

	// A reader may get StorageBenchmarks (and campaign reports) in its own
	// namespace, nothing elsewhere.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: mine}}
	if err := k8sClient.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "read-results", Namespace: mine},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"benchwright.io"}, Resources: []string{"storagebenchmarks", "mpibenchmarks", artifactserver.CampaignReportsResource}, Verbs: []string{"get"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "read-results", Namespace: mine},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: mine}},
	}
	if err := k8sClient.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	if err := k8sClient.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	tokenFor := func(audiences ...string) string {
		tr, err := clientset.CoreV1().ServiceAccounts(mine).CreateToken(ctx, sa.Name,
			&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{Audiences: audiences}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	reader := tokenFor(artifactserver.TokenAudience)
	apiToken := tokenFor()

	guarded := httptest.NewServer(artifactserver.NewPublishing(store, &artifactserver.KubeAuthorizer{Client: k8sClient}, testr.New(t)))
	defer guarded.Close()
	open := httptest.NewServer(artifactserver.New(store, testr.New(t)))
	defer open.Close()
	get := func(srv *httptest.Server, token, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	file := func(loc artifacts.Location, name string) string {
		return "/files/" + loc.Namespace + "/" + loc.Kind + "/" + loc.Name + "/" + loc.UID + "/" + name
	}
	runPage := func(loc artifacts.Location) string {
		return "/runs/" + loc.Namespace + "/" + loc.Kind + "/" + loc.Name + "/" + loc.UID + "/"
	}
	theirFiles := []string{
		file(secret, "raw/0/bench-0.log"), file(secret, "steps.json"), file(secret, "samples.ndjson"),
		runPage(secret), "/campaigns/" + theirs + "/s0/report.md",
	}

	for _, token := range []string{"", "not-a-token", apiToken} {
		for _, p := range append([]string{"/", file(ours, "samples.ndjson")}, theirFiles...) {
			if code, body := get(guarded, token, p); code != http.StatusUnauthorized {
				t.Errorf("GET %s with token %.10q: %d, want 401\n%.300s", p, token, code, body)
			}
		}
	}
	for _, p := range theirFiles {
		if code, body := get(guarded, reader, p); code != http.StatusForbidden || strings.Contains(body, "hunter2") {
			t.Errorf("GET %s of another namespace: %d, want 403\n%.300s", p, code, body)
		}
	}
	for _, p := range []string{file(ours, "samples.ndjson"), file(ours, "raw/0/bench-0.log"), runPage(ours), "/campaigns/" + mine + "/s0/report.md"} {
		if code, body := get(guarded, reader, p); code != http.StatusOK {
			t.Errorf("GET %s of the reader's namespace: %d, want 200\n%.300s", p, code, body)
		}
	}
	code, index := get(guarded, reader, "/")
	if code != http.StatusOK || !strings.Contains(index, "fio-ours") || strings.Contains(index, "osu-theirs") ||
		!strings.Contains(index, mine+"/s0/report.md") || strings.Contains(index, theirs+"/s0/report.md") {
		t.Errorf("the reader's index: %d, want its own run and campaign only\n%s", code, index)
	}

	// The plain listener, which only port-forward reaches, asks nobody.
	for _, p := range append([]string{"/"}, theirFiles...) {
		if code, _ := get(open, "", p); code != http.StatusOK {
			t.Errorf("GET %s on the port-forward listener: %d, want 200", p, code)
		}
	}
}
