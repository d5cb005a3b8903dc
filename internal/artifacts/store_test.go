package artifacts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"
)

// backend is a store to run the operations against: url opens it with the
// prefix "runs/" (a subdirectory for file://), rootURL opens what holds it.
type backend struct {
	url, rootURL  string
	base, rootDir string // URI("") of the store; for file://, its parent directory
}

// backends start the emulators (or skip) and create the bucket "artifacts".
var backends = []struct {
	name  string
	setup func(t *testing.T) backend
}{
	{"file", func(t *testing.T) backend {
		root := t.TempDir()
		dir := filepath.Join(root, "runs") // missing: Open creates it
		return backend{url: "file://" + dir, rootURL: "file://" + root, base: "file://" + dir + "/", rootDir: root}
	}},
	{"gs", func(t *testing.T) backend {
		startFakeGCS(t)
		b := backend{url: "gs://artifacts/runs", rootURL: "gs://artifacts", base: "gs://artifacts/runs/"}
		root := openStore(t, b.rootURL)
		var c *storage.Client
		if !root.bucket.As(&c) {
			t.Fatal("gcsblob bucket is not a *storage.Client")
		}
		if err := c.Bucket("artifacts").Create(testContext(t), "benchwright-test", nil); err != nil {
			t.Fatalf("creating bucket: %v", err)
		}
		return b
	}},
	{"s3", func(t *testing.T) backend {
		addr := startMinIO(t)
		q := "?region=us-east-1&use_path_style=true&endpoint=http://" + addr
		b := backend{url: "s3://artifacts/runs" + q, rootURL: "s3://artifacts" + q, base: "s3://artifacts/runs/"}
		root := openStore(t, b.rootURL)
		var c *s3.Client
		if !root.bucket.As(&c) {
			t.Fatal("s3blob bucket is not a *s3.Client")
		}
		if _, err := c.CreateBucket(testContext(t), &s3.CreateBucketInput{Bucket: aws.String("artifacts")}); err != nil {
			t.Fatalf("creating bucket: %v", err)
		}
		return b
	}},
}

// operations run in order against each backend, each on its own Location.
var operations = []struct {
	name string
	run  func(t *testing.T, s *Store, b backend)
}{
	{"put and get", testPutGet},
	{"get missing", testGetMissing},
	{"exists", testExists},
	{"list under a prefix", testList},
	{"delete prefix", testDelete},
	{"uri", testURI},
	{"layout keys", testLayoutKeys},
	{"prefix from the URL", testPrefix},
}

func TestStore(t *testing.T) {
	for _, bk := range backends {
		t.Run(bk.name, func(t *testing.T) {
			b := bk.setup(t)
			s := openStore(t, b.url)
			for _, op := range operations {
				t.Run(op.name, func(t *testing.T) { op.run(t, s, b) })
			}
		})
	}
}

func testPutGet(t *testing.T, s *Store, _ backend) {
	ctx := testContext(t)
	key := mustKey(t, loc("put").Summary)
	put(t, s, key, `{"v":1}`)
	put(t, s, key, `{"v":2}`) // replaces
	if got := get(t, s, key); got != `{"v":2}` {
		t.Errorf("Get = %q, want the second Put", got)
	}
	attrs, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if attrs.ContentType != "application/json" {
		t.Errorf("content type %q, want application/json", attrs.ContentType)
	}

	log := mustKey(t, func() (string, error) { return loc("put").RawLog(1, "pod-0") })
	if err := s.PutReader(ctx, log, strings.NewReader("line 1\nline 2\n"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, log); got != "line 1\nline 2\n" {
		t.Errorf("Get after PutReader = %q", got)
	}
}

func testGetMissing(t *testing.T, s *Store, _ backend) {
	key := mustKey(t, loc("missing").Summary)
	_, err := s.Get(testContext(t), key)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), s.URI(key)) {
		t.Errorf("error %q does not name %s", err, s.URI(key))
	}
}

func testExists(t *testing.T, s *Store, _ backend) {
	key := mustKey(t, loc("exists").Nodes)
	if exists(t, s, key) {
		t.Fatal("Exists before Put")
	}
	put(t, s, key, "[]")
	if !exists(t, s, key) {
		t.Fatal("not Exists after Put")
	}
}

func testList(t *testing.T, s *Store, _ backend) {
	run, sibling := loc("list"), loc("list2") // "…/list2/" must not match "…/list/"
	want := putAll(t, s, run)
	putAll(t, s, sibling)
	if diff := cmp.Diff(want, list(t, s, mustKey(t, run.Prefix))); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if got := list(t, s, "nowhere/"); len(got) != 0 {
		t.Errorf("List of an empty prefix = %q", got)
	}
	// ListN: all of them within the bound, the first n beyond it.
	prefix := mustKey(t, run.Prefix)
	for _, n := range []int{len(want), len(want) - 1} {
		keys, truncated, err := s.ListN(testContext(t), prefix, n)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want[:n], keys); diff != "" || truncated != (n < len(want)) {
			t.Errorf("ListN(%d) truncated=%v (-want +got):\n%s", n, truncated, diff)
		}
	}
}

func testDelete(t *testing.T, s *Store, b backend) {
	ctx := testContext(t)
	run, sibling := loc("delete"), loc("delete2")
	prefix := mustKey(t, run.Prefix)
	putAll(t, s, run)
	kept := putAll(t, s, sibling)
	for range 2 { // the second time finds nothing, which is fine
		if err := s.Delete(ctx, prefix); err != nil {
			t.Fatal(err)
		}
	}
	if got := list(t, s, prefix); len(got) != 0 {
		t.Errorf("left after Delete: %q", got)
	}
	if diff := cmp.Diff(kept, list(t, s, mustKey(t, sibling.Prefix))); diff != "" {
		t.Errorf("sibling after Delete (-want +got):\n%s", diff)
	}
	if err := s.Delete(ctx, ""); err == nil || !strings.Contains(err.Error(), "whole store") {
		t.Errorf("Delete(\"\") = %v, want a refusal", err)
	}
	if b.rootDir != "" { // no empty directories left behind
		dir := filepath.Join(b.rootDir, "runs", filepath.FromSlash(prefix))
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there after Delete: %v", dir, err)
		}
	}
}

func testURI(t *testing.T, s *Store, b backend) {
	key := mustKey(t, loc("uri").Report)
	if got, want := s.URI(key), b.base+"ns/Bench/uri/uid-1/report.html"; got != want {
		t.Errorf("URI = %q, want %q", got, want)
	}
	if got := s.URI(""); got != b.base {
		t.Errorf("URI(\"\") = %q, want %q", got, b.base)
	}
}

func testLayoutKeys(t *testing.T, s *Store, _ backend) {
	l := loc("layout")
	putAll(t, s, l)
	var got []string
	prefix := mustKey(t, l.Prefix)
	for _, k := range list(t, s, prefix) {
		got = append(got, strings.TrimPrefix(k, prefix))
	}
	want := []string{"nodes.json", "raw/0/pod-a.log", "raw/1/pod-b.log", "report.html", "samples.csv", "samples.ndjson", "summary.json"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
}

// testPrefix checks that the store's keys sit under "runs/" of the bucket.
func testPrefix(t *testing.T, s *Store, b backend) {
	key := mustKey(t, loc("prefix").Summary)
	put(t, s, key, "{}")
	root := openStore(t, b.rootURL)
	if !exists(t, root, "runs/"+key) {
		t.Errorf("runs/%s not in %s", key, b.rootURL)
	}
	if got := root.URI("runs/" + key); got != s.URI(key) {
		t.Errorf("URI from the root %q, from the store %q", got, s.URI(key))
	}
}

// Helpers.

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

func openStore(t *testing.T, url string) *Store {
	t.Helper()
	s, err := Open(testContext(t), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing %s: %v", url, err)
		}
	})
	return s
}

func loc(name string) Location {
	return Location{Namespace: "ns", Kind: "Bench", Name: name, UID: "uid-1"}
}

func mustKey(t *testing.T, f func() (string, error)) string {
	t.Helper()
	k, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// putAll writes every artifact of l and returns their keys, sorted.
func putAll(t *testing.T, s *Store, l Location) []string {
	t.Helper()
	keys := []string{
		mustKey(t, l.Nodes),
		mustKey(t, func() (string, error) { return l.RawLog(0, "pod-a") }),
		mustKey(t, func() (string, error) { return l.RawLog(1, "pod-b") }),
		mustKey(t, l.Report),
		mustKey(t, l.SamplesCSV),
		mustKey(t, l.SamplesNDJSON),
		mustKey(t, l.Summary),
	}
	for _, k := range keys {
		put(t, s, k, "data of "+k)
	}
	return keys
}

func put(t *testing.T, s *Store, key, data string) {
	t.Helper()
	ct := "text/plain"
	if strings.HasSuffix(key, ".json") {
		ct = "application/json"
	}
	if err := s.Put(testContext(t), key, []byte(data), ct); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, s *Store, key string) string {
	t.Helper()
	data, err := s.Get(testContext(t), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func exists(t *testing.T, s *Store, key string) bool {
	t.Helper()
	ok, err := s.Exists(testContext(t), key)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func list(t *testing.T, s *Store, prefix string) []string {
	t.Helper()
	keys, err := s.List(testContext(t), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}
