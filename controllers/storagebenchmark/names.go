package storagebenchmark

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// maxChildName keeps child names valid as label values (Jobs put their name in
// the job-name label of their pods) and leaves room for the pod suffix.
const maxChildName = 52

// Labels on the children, besides those of the API package.
const (
	attemptLabel = "benchwright.io/attempt"
	slotLabel    = "benchwright.io/slot"
)

// maxLabelValue is the API server's limit on a label value.
const maxLabelValue = 63

// childName is base + suffix, shortened with a hash of base when too long, so
// two long benchmark names never share children.
func childName(base, suffix string) string { return shorten(base, suffix, maxChildName) }

// benchmarkLabelValue is the benchmark's name as a label value: names may have
// 253 characters, label values 63.
func benchmarkLabelValue(name string) string { return shorten(name, "", maxLabelValue) }

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

// jobName names the Job of one node slot of one attempt of a repetition:
// "<name>-r<rep>", then "-n<slot>" with several nodes, "-a<attempt>" on retries.
func jobName(bench string, rep, slot, attempt int, nodes int32) string {
	suffix := "-r" + strconv.Itoa(rep)
	if nodes > 1 {
		suffix += "-n" + strconv.Itoa(slot)
	}
	if attempt > 0 {
		suffix += "-a" + strconv.Itoa(attempt)
	}
	return childName(bench, suffix)
}

// pvcName names the claim of volume vol of node slot: "<name>-data<vol>", with
// "-n<slot>" before it when several nodes each get their own disks.
func pvcName(bench string, slot, vol int, nodes int32) string {
	suffix := fmt.Sprintf("-data%d", vol)
	if nodes > 1 {
		suffix = fmt.Sprintf("-n%d%s", slot, suffix)
	}
	return childName(bench, suffix)
}

// configMapName names the ConfigMap that holds the fio job file.
func configMapName(bench string) string { return childName(bench, "-fio") }
