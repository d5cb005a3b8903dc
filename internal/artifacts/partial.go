package artifacts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// partialUpload is the name of the temporary file a file:// store writes an
// object to before renaming it into place (gocloud's fileblob, with
// no_tmp_dir: "<name>.<nanoseconds in hex>.tmp" beside the object). A
// process killed mid-upload leaves it behind; bucket uploads are atomic and
// leave nothing.
var partialUpload = regexp.MustCompile(`\.[0-9a-f]+\.tmp$`)

// isPartial tells whether key of this store is an upload under way or cut
// short, not an object.
func (s *Store) isPartial(key string) bool {
	return s.dir != "" && partialUpload.MatchString(key)
}

// RemovePartial deletes what uploads under prefix that a crash cut short
// left in a file:// store; nothing elsewhere. Only the one writer of the
// prefix may call it: it would break that writer's upload under way.
func (s *Store) RemovePartial(prefix string) error {
	if s.dir == "" {
		return nil
	}
	root := filepath.Join(s.dir, filepath.FromSlash(prefix))
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !partialUpload.MatchString(d.Name()) {
			return err
		}
		return os.Remove(path)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
