package artifacts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Put writes data to key, replacing any previous object. An empty contentType
// is detected from the data.
func (s *Store) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := s.bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: contentType}); err != nil {
		return fmt.Errorf("writing %s: %w", s.URI(key), err)
	}
	return nil
}

// PutReader writes everything read from r to key, streaming it.
func (s *Store) PutReader(ctx context.Context, key string, r io.Reader, contentType string) error {
	if err := s.bucket.Upload(ctx, key, r, &blob.WriterOptions{ContentType: contentType}); err != nil {
		return fmt.Errorf("writing %s: %w", s.URI(key), err)
	}
	return nil
}

// Get reads key. A missing key gives an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	data, err := s.bucket.ReadAll(ctx, key)
	if err != nil {
		return nil, s.wrap("reading", key, err)
	}
	return data, nil
}

// NewReader opens key for streaming; the caller closes it. A missing key
// gives an error wrapping ErrNotFound.
func (s *Store) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, s.wrap("reading", key, err)
	}
	return r, nil
}

// Exists reports whether key exists.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", s.URI(key), err)
	}
	return ok, nil
}

// List returns the keys under prefix, recursively, in lexical order. Use a
// prefix ending in "/" to list a directory: "a/b" also matches "a/bc".
// Uploads under way or cut short are no objects: not listed.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	keys, _, err := s.ListN(ctx, prefix, -1)
	return keys, err
}

// ListN is List that stops after max keys (max < 0: none): truncated says
// keys are the first max of the listing's order (the bucket's, lexical for
// every driver of the store), not all.
func (s *Store) ListN(ctx context.Context, prefix string, max int) (keys []string, truncated bool, err error) {
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, fmt.Errorf("listing %s: %w", s.URI(prefix), err)
		}
		if obj.IsDir || s.isPartial(obj.Key) {
			continue
		}
		if len(keys) == max {
			truncated = true
			break
		}
		keys = append(keys, obj.Key)
	}
	sort.Strings(keys)
	return keys, truncated, nil
}

// Walk hands each key under prefix to f as the bucket lists it (lexical
// order for every driver of the store), holding none: for stores too large
// to list into memory. An error from f stops the walk and is returned.
func (s *Store) Walk(ctx context.Context, prefix string, f func(key string) error) error {
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", s.URI(prefix), err)
		}
		if obj.IsDir || s.isPartial(obj.Key) {
			continue
		}
		if err := f(obj.Key); err != nil {
			return err
		}
	}
}

// Delete deletes every object under prefix; nothing there is not an error.
// The empty prefix (the whole store) is refused.
func (s *Store) Delete(ctx context.Context, prefix string) error {
	if prefix == "" {
		return fmt.Errorf("deleting %s: refusing to delete the whole store", s.URI(""))
	}
	keys, err := s.List(ctx, prefix)
	if err != nil {
		return err
	}
	for _, key := range keys {
		if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return s.wrap("deleting", key, err)
		}
	}
	s.pruneDirs(keys)
	return nil
}

// pruneDirs removes the directories of a file:// store left empty by Delete,
// up to the store's root.
func (s *Store) pruneDirs(keys []string) {
	if s.dir == "" {
		return
	}
	for _, key := range keys {
		for d := filepath.Dir(filepath.Join(s.dir, filepath.FromSlash(key))); strings.HasPrefix(d, s.dir+string(filepath.Separator)); d = filepath.Dir(d) {
			if err := os.Remove(d); err != nil {
				break // not empty, or pruned with an earlier key
			}
		}
	}
}

func (s *Store) wrap(op, key string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%s %s: %w", op, s.URI(key), ErrNotFound)
	}
	return fmt.Errorf("%s %s: %w", op, s.URI(key), err)
}

// ModTime is when the object at key was last written.
func (s *Store) ModTime(ctx context.Context, key string) (time.Time, error) {
	attrs, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return time.Time{}, s.wrap("reading the attributes of", key, err)
	}
	return attrs.ModTime, nil
}
