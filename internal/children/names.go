package children

import (
	"crypto/sha256"
	"encoding/hex"
)

// MaxName keeps child names valid as label values (Jobs put their name in
// the job-name label of their pods) and leaves room for a pod suffix.
const MaxName = 52

// maxLabelValue is the API server's limit on a label value.
const maxLabelValue = 63

// Name is base + suffix, shortened with a hash of base when too long, so
// two long benchmark names never share children.
func Name(base, suffix string) string { return shorten(base, suffix, MaxName) }

// ShortName is base + suffix within limit characters, shortened like
// Name, for children whose own children add longer suffixes.
func ShortName(base, suffix string, limit int) string { return shorten(base, suffix, limit) }

// LabelValue is a benchmark's name as a label value: names may have 253
// characters, label values 63.
func LabelValue(name string) string { return shorten(name, "", maxLabelValue) }

// shorten is base + suffix within limit characters: base is cut and a hash of
// it appended when needed.
func shorten(base, suffix string, limit int) string {
	if len(base)+len(suffix) <= limit {
		return base + suffix
	}
	sum := sha256.Sum256([]byte(base))
	hash := hex.EncodeToString(sum[:])[:8]
	keep := limit - len(suffix) - len(hash) - 1
	trimmed := base[:keep]
	for trimmed != "" && (trimmed[len(trimmed)-1] == '-' || trimmed[len(trimmed)-1] == '.') {
		trimmed = trimmed[:len(trimmed)-1]
	}
	return trimmed + "-" + hash + suffix
}
