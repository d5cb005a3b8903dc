package compare

import (
	"path/filepath"
	"strings"

	"github.com/benchwright/benchwright/internal/report/source"
)

// originName is the run name of an input's samples that name no benchmark:
// the file's base name without extension, or its directory's name for a
// samples.ndjson.
func originName(origin string) string {
	base := filepath.Base(origin)
	if base == source.SamplesFile {
		base = filepath.Base(filepath.Dir(origin))
	}
	for _, ext := range []string{".ndjson", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}
