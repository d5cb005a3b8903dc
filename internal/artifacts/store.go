// Package artifacts stores a run's artifacts (samples, summary, raw tool output,
// report) in a bucket addressed by URL: gs://, s3://, azblob:// or file://.
// The manager uploads with its own credentials; benchmark pods hold none.
package artifacts

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"gocloud.dev/blob"
	// Drivers for the schemes Open accepts.
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)

// schemes are the URL schemes Open accepts.
var schemes = []string{"azblob", "file", "gs", "s3"}

// ErrNotFound is returned (wrapped) when an artifact does not exist.
var ErrNotFound = errors.New("artifact not found")

// Store is a bucket, or a prefix of one, holding artifacts under keys such as
// "ns/Kind/name/uid/summary.json". It is safe for concurrent use.
type Store struct {
	bucket *blob.Bucket
	base   string // URL of the store's root, ending in "/"
	dir    string // local directory for file://, else ""
}

// Open opens the store at rawURL:
//
//	gs://bucket/prefix
//	s3://bucket/prefix?region=eu-west-1[&endpoint=...&use_path_style=true]
//	azblob://container/prefix
//	file:///abs/dir
//
// Credentials come from the environment (Application Default Credentials, AWS
// and Azure variables). A file:// directory is created if missing.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	s, err := open(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("opening artifact store %q: %w", rawURL, err)
	}
	return s, nil
}

func open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	for _, p := range []string{"prefix", "key"} {
		if q.Has(p) {
			return nil, fmt.Errorf("query parameter %q is not supported: the URL path is the prefix", p)
		}
	}
	switch u.Scheme {
	case "file":
		return openDir(ctx, u)
	case "gs", "s3", "azblob":
		return openBucket(ctx, u)
	case "":
		return nil, fmt.Errorf("no scheme; want one of %s", schemeList())
	default:
		return nil, fmt.Errorf("unsupported scheme %q; want one of %s", u.Scheme, schemeList())
	}
}

// openBucket opens gs://, s3:// and azblob:// URLs, the path being a key prefix.
func openBucket(ctx context.Context, u *url.URL) (*Store, error) {
	if u.Host == "" {
		return nil, fmt.Errorf("no bucket name in %s:// URL", u.Scheme)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix != "" {
		for e := range strings.SplitSeq(prefix, "/") {
			if e == "" || e == "." || e == ".." {
				return nil, fmt.Errorf("invalid prefix %q", u.Path)
			}
		}
		prefix += "/"
	}
	bu := *u
	bu.Path, bu.RawPath = "", ""
	b, err := blob.OpenBucket(ctx, bu.String())
	if err != nil {
		return nil, err
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix)
	}
	return &Store{bucket: b, base: u.Scheme + "://" + u.Host + "/" + prefix}, nil
}

// openDir opens a file:// URL, creating the directory if missing. Temporary
// files are written next to their target, as os.Rename fails across mounts.
func openDir(ctx context.Context, u *url.URL) (*Store, error) {
	if u.Host != "" || !path.IsAbs(u.Path) {
		return nil, errors.New("file URL must hold an absolute path, as in file:///abs/dir")
	}
	dir := path.Clean(u.Path)
	fu := *u
	q := fu.Query()
	for _, p := range []string{"create_dir", "no_tmp_dir"} {
		if !q.Has(p) {
			q.Set(p, "true")
		}
	}
	fu.RawQuery = q.Encode()
	b, err := blob.OpenBucket(ctx, fu.String())
	if err != nil {
		return nil, err
	}
	return &Store{bucket: b, base: "file://" + strings.TrimSuffix(dir, "/") + "/", dir: dir}, nil
}

func schemeList() string {
	return strings.Join(schemes, "://, ") + "://"
}

// IsURL tells whether s is a URL of a scheme Open accepts (gs://, s3://,
// azblob://, file://) rather than a local path.
func IsURL(s string) bool {
	for _, scheme := range schemes {
		if strings.HasPrefix(s, scheme+"://") {
			return true
		}
	}
	return false
}

// URI is the full URL of key, e.g. gs://bucket/prefix/ns/Kind/name/uid/summary.json,
// without query parameters. URI("") is the store's root.
func (s *Store) URI(key string) string {
	return s.base + key
}

// Close releases the bucket.
func (s *Store) Close() error {
	return s.bucket.Close()
}
