package fio

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// DDFile is the file dd writes and reads in each volume directory.
const DDFile = "benchwright-dd.dat"

var ddBlockPattern = regexp.MustCompile(`^[0-9]+[kKMG]?$`)

// DDArgs is the argv of one dd test on a volume directory: writes copy /dev/zero
// to the test file, reads copy it to /dev/null. No shell is involved.
func DDArgs(t benchv1.DDTest, dir string) ([]string, error) {
	bs := cmp.Or(t.BlockSize, "1M")
	if !ddBlockPattern.MatchString(bs) {
		return nil, fmt.Errorf("dd test %q: blockSize %q is not a byte count like 1M", t.Name, bs)
	}
	if t.Count < 1 {
		return nil, fmt.Errorf("dd test %q: count must be at least 1", t.Name)
	}
	if !strings.HasPrefix(dir, "/") {
		return nil, fmt.Errorf("dd test %q: directory %q is not absolute", t.Name, dir)
	}
	file := strings.TrimSuffix(dir, "/") + "/" + DDFile
	args := []string{"dd"}
	switch t.Operation {
	case benchv1.DDWrite:
		args = append(args, "if=/dev/zero", "of="+file)
		if t.OFlag != "" {
			args = append(args, "oflag="+t.OFlag)
		}
	case benchv1.DDRead:
		args = append(args, "if="+file, "of=/dev/null")
		if t.IFlag != "" {
			args = append(args, "iflag="+t.IFlag)
		}
	default:
		return nil, fmt.Errorf("dd test %q: operation must be write or read, not %q", t.Name, t.Operation)
	}
	// GNU dd takes bs=1M; lower-case m is not a suffix it knows.
	return append(args, "bs="+bs, fmt.Sprintf("count=%d", t.Count)), nil
}

// DDPrepareArgs is the untimed dd that creates the test file when the first dd
// test reads it (nil when a write comes first). It writes as much as the largest
// read needs.
func DDPrepareArgs(tests []benchv1.DDTest, dir string) []string {
	if len(tests) == 0 || tests[0].Operation != benchv1.DDRead {
		return nil
	}
	largest := tests[0]
	for _, t := range tests[1:] {
		if t.Operation == benchv1.DDRead && t.Count > largest.Count {
			largest = t
		}
	}
	file := strings.TrimSuffix(dir, "/") + "/" + DDFile
	return []string{"dd", "if=/dev/zero", "of=" + file, "bs=" + cmp.Or(largest.BlockSize, "1M"),
		fmt.Sprintf("count=%d", largest.Count), "conv=fsync"}
}
