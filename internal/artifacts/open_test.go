package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenErrors(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"://bad", "missing protocol scheme"},
		{"bucket/prefix", "no scheme; want one of azblob://, file://, gs://, s3://"},
		{"ftp://bucket/x", `unsupported scheme "ftp"; want one of azblob://, file://, gs://, s3://`},
		{"gs:///prefix", "no bucket name in gs:// URL"},
		{"s3://bucket/a/../b?region=us-east-1", `invalid prefix "/a/../b"`},
		{"gs://bucket/a//b", "invalid prefix"},
		{"gs://bucket/p?prefix=x", `query parameter "prefix" is not supported`},
		{"file://relative/dir", "absolute path"},
		{"file://" + t.TempDir() + "?bogus=1", `invalid query parameter "bogus"`},
	} {
		t.Run(c.url, func(t *testing.T) {
			s, err := Open(testContext(t), c.url)
			if err == nil {
				_ = s.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "opening artifact store") {
				t.Errorf("error %q, want %q in it", err, c.want)
			}
		})
	}
}

func TestOpenFileCreatesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	openStore(t, "file://"+dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("%s not created: %v", dir, err)
	}
}

func TestIsURL(t *testing.T) {
	for s, want := range map[string]bool{
		"gs://bucket/prefix": true, "s3://bucket": true, "azblob://c/p": true, "file:///var/lib/x": true,
		"results/fio-c2": false, "/abs/samples.ndjson": false, "ftp://host/x": false, "gs:/bucket": false,
	} {
		if got := IsURL(s); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", s, got, want)
		}
	}
}
