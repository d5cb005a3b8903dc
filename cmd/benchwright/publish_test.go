package main

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/results"
)

// oneToken lets one token publish and read in one namespace.
type oneToken struct{ token, namespace string }

func (o oneToken) Authenticate(_ context.Context, token string) (artifactserver.User, error) {
	if token != o.token {
		return artifactserver.User{}, fmt.Errorf("%w: unknown token", artifactserver.ErrUnauthenticated)
	}
	return artifactserver.User{Username: "campaign"}, nil
}

func (o oneToken) MayRead(_ context.Context, _ artifactserver.User, namespace, _, _ string) (bool, error) {
	return namespace == o.namespace, nil
}

func (o oneToken) AuthorizePublish(_ context.Context, token, namespace, _ string) error {
	if token != o.token {
		return fmt.Errorf("%w: unknown token", artifactserver.ErrUnauthenticated)
	}
	if namespace != o.namespace {
		return fmt.Errorf("%w: not in %s", artifactserver.ErrForbidden, namespace)
	}
	return nil
}

func TestReportPublish(t *testing.T) {
	ctx := context.Background()
	store, err := artifacts.Open(ctx, "file://"+filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	srv := httptest.NewTLSServer(artifactserver.NewPublishing(store, oneToken{"wf-token", "perf"}, testr.New(t)))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeRun(t, dir, "fio-c2", "c2-standard-60", 1, 100000, 98000, 102000)
	writeRun(t, dir, "fio-c3", "c3-highcpu-176", 1, 260000, 258000, 262000)
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("wf-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	_, stderr, err := runCLI(t, "report", dir, "-n", "perf", "--publish", "--campaign", "s0-x7k2p", "--server", srv.URL, "--token-file", token, "--ca-file", ca)
	if err != nil {
		t.Fatalf("publish: %v\n%s", err, stderr)
	}
	for format, want := range map[string]string{"html": "<svg", "md": "| c3-highcpu-176 speedup vs c2-standard-60 |", "csv": "run,kind,namespace"} {
		key, _ := artifacts.CampaignReport("perf", "s0-x7k2p", format)
		data, err := store.Get(ctx, key)
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s in the store: %v, lacks %q", key, err, want)
		}
		if !strings.Contains(stderr, "published "+srv.URL+"/campaigns/perf/s0-x7k2p/report."+format) {
			t.Errorf("stderr does not name the %s report: %s", format, stderr)
		}
	}

	// Refusals say what the server said; nothing needs a cluster to fail.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "hpc", "--campaign", "x", "--token-file", token}, "403 Forbidden: forbidden: not in hpc"},
		// Without -n, the kubeconfig context's namespace.
		{[]string{"--kubeconfig", writeKubeconfig(t), "--context", "b", "--campaign", "x", "--token-file", token}, "403 Forbidden: forbidden: not in team-b"},
		{[]string{"-n", "perf", "--campaign", "x", "--token-file", dir}, "--publish needs a ServiceAccount token"},
		{[]string{"-n", "perf", "--token-file", token}, "name the campaign with --campaign"},
		// The token goes to a server the CA vouches for, over TLS only.
		{[]string{"-n", "perf", "--campaign", "x", "--token-file", token, "--ca-file", ""}, "certificate signed by unknown authority"},
		{[]string{"-n", "perf", "--campaign", "x", "--token-file", token, "--server", "http://" + srv.Listener.Addr().String()}, "the token is sent over https:// only"},
	} {
		args := append([]string{"report", dir, "--publish", "--server", srv.URL, "--ca-file", ca}, c.args...)
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

func TestCampaignFromSelector(t *testing.T) {
	for sel, want := range map[string]string{
		"benchwright.io/campaign=s0-x7k2p":            "s0-x7k2p",
		"team=hpc,benchwright.io/campaign==s3-ladder": "s3-ladder",
		"benchwright.io/campaign in (a,b)":            "",
		"team=hpc":                                    "",
	} {
		got, err := publishFlags{}.campaignName(sel)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("campaignName(%q) = %q, %v; want %q", sel, got, err, want)
		}
	}
}

// The report step (--publish, with the campaign's token) reads a run in a
// gs:// or s3:// store through the manager's artifact server, which
// authorizes it, and never from the bucket: the campaign identity needs no
// bucket access (with it, any Workflow submitter read every namespace's
// raw logs and steps.json).
func TestPublishingReportReadsBucketRunsThroughTheManager(t *testing.T) {
	ctx := context.Background()
	store, err := artifacts.Open(ctx, "file://"+filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	local := writeRun(t, t.TempDir(), "fio-c2", "c2-standard-60", 1, 100000, 98000)
	data, err := os.ReadFile(filepath.Join(local, "samples.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"perf", "other"} {
		if err := store.Put(ctx, ns+"/StorageBenchmark/fio-c2/0b6c-11/samples.ndjson", data, "application/x-ndjson"); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewTLSServer(artifactserver.NewPublishing(store, oneToken{"wf-token", "perf"}, testr.New(t)))
	defer srv.Close()
	f := clusterFlags{reader: &artifactReader{server: srv.URL, token: "wf-token", client: srv.Client()}}

	read := func(ns string) (int, error) {
		src, err := f.sourceOf(clusterBenchmark{kind: "StorageBenchmark", namespace: ns, name: "fio-c2",
			uri: "gs://no-such-bucket-benchwright/" + ns + "/StorageBenchmark/fio-c2/0b6c-11/"})
		if err != nil {
			return 0, err
		}
		n := 0
		err = src.Samples(ctx, func(string, results.Sample) { n++ })
		return n, err
	}
	if n, err := read("perf"); err != nil || n != 3 {
		t.Errorf("the campaign's own run: %d samples, %v; want 3 through the manager", n, err)
	}
	if _, err := read("other"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("another namespace's run: %v, want the artifact server's 403", err)
	}
}
