package fio

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// DDFile is the file dd writes and reads in each volume directory; process i
// of a multi-process test uses DDFile.i (process 0 uses DDFile itself).
const DDFile = "benchwright-dd.dat"

var ddBlockPattern = regexp.MustCompile(`^[0-9]+[kKMG]?$`)

// DDExec names what a dd test's argv runs: dd itself, and the directory where
// the processes of a multi-process test leave their output until all are done.
type DDExec struct {
	DD      string // "dd" in a pod; the configured dd in a local run
	Scratch string // "/tmp" in a pod; a temporary directory in a local run
}

// PodDDExec is the DDExec of a StorageBenchmark pod: dd on the PATH of the
// image, and the pod's own writable /tmp.
var PodDDExec = DDExec{DD: "dd", Scratch: "/tmp"}

// ddGroupShell runs the processes of a multi-process test.
const ddGroupShell = "/bin/sh"

// ddGroupScript starts N dd processes at once, file per process, waits for all
// of them, then prints each one's output after a DDProcessMarker line. It is a
// constant: the spec's values arrive as positional arguments ($1 processes, $2
// dd, $3 scratch directory, $4 the file operand's key, $5 the file, then dd's
// other operands) and are never part of the script's text. A shell, rather than
// one container per process, because a pod runs its init containers one after
// the other: only processes of one container run at the same time.
const ddGroupScript = `n=$1 dd=$2 scratch=$3 key=$4 file=$5
shift 5
pids=
i=0
while [ "$i" -lt "$n" ]; do
  f=$file
  [ "$i" -eq 0 ] || f=$file.$i
  "$dd" "$key=$f" "$@" 2>"$scratch/benchwright-dd.$i" &
  pids="$pids $!"
  i=$((i + 1))
done
rc=0
for p in $pids; do wait "$p" || rc=$?; done
i=0
while [ "$i" -lt "$n" ]; do
  echo "==> benchwright dd process $i <=="
  cat "$scratch/benchwright-dd.$i"
  i=$((i + 1))
done
exit "$rc"
`

// DDFilePath is process i's test file in directory dir.
func DDFilePath(dir string, i int) string {
	file := strings.TrimSuffix(dir, "/") + "/" + DDFile
	if i > 0 {
		file += "." + strconv.Itoa(i)
	}
	return file
}

// DDArgs is the argv of one dd test on a volume directory: writes copy /dev/zero
// to the test file, reads copy it to /dev/null. With several processes it is
// the constant ddGroupScript with the test's values as arguments. No shell
// ever reads a spec value as code.
func DDArgs(t benchv1.DDTest, dir string, x DDExec) ([]string, error) {
	bs := cmp.Or(t.BlockSize, "1M")
	if !ddBlockPattern.MatchString(bs) {
		return nil, fmt.Errorf("dd test %q: blockSize %q is not a byte count like 1M", t.Name, bs)
	}
	if t.Count < 1 {
		return nil, fmt.Errorf("dd test %q: count must be at least 1", t.Name)
	}
	if n := t.ProcessesOrDefault(); n > 256 {
		return nil, fmt.Errorf("dd test %q: processes is %d, at most 256 run at once", t.Name, n)
	}
	if !strings.HasPrefix(dir, "/") {
		return nil, fmt.Errorf("dd test %q: directory %q is not absolute", t.Name, dir)
	}
	var key string
	var rest []string
	switch t.Operation {
	case benchv1.DDWrite:
		key, rest = "of", []string{"if=/dev/zero"}
		if t.OFlag != "" {
			rest = append(rest, "oflag="+t.OFlag)
		}
	case benchv1.DDRead:
		key, rest = "if", []string{"of=/dev/null"}
		if t.IFlag != "" {
			rest = append(rest, "iflag="+t.IFlag)
		}
	default:
		return nil, fmt.Errorf("dd test %q: operation must be write or read, not %q", t.Name, t.Operation)
	}
	// GNU dd takes bs=1M; lower-case m is not a suffix it knows.
	rest = append(rest, "bs="+bs, fmt.Sprintf("count=%d", t.Count))
	return ddCommand(t.ProcessesOrDefault(), key, DDFilePath(dir, 0), rest, x), nil
}

// ddCommand is dd with the file operand key=file and the other operands rest,
// run by n processes at once when n > 1.
func ddCommand(n int32, key, file string, rest []string, x DDExec) []string {
	if n <= 1 {
		// The order dd's users know: if= before of=.
		if key == "of" {
			return append([]string{x.DD, rest[0], key + "=" + file}, rest[1:]...)
		}
		return append([]string{x.DD, key + "=" + file}, rest...)
	}
	argv := []string{ddGroupShell, "-c", ddGroupScript, "benchwright-dd", strconv.Itoa(int(n)), x.DD, x.Scratch, key, file}
	return append(argv, rest...)
}

// DDPrepareArgs is the untimed dd that creates the test files a read needs
// before any write test has written them (nil when none does): when the first
// test reads, or when a read uses more processes, so more files, than every
// write before it. It writes as many files as the most processes of a read, each
// as large as the largest read needs, with conv=fsync.
func DDPrepareArgs(tests []benchv1.DDTest, dir string, x DDExec) []string {
	var written, files int32
	need := false
	var largest *benchv1.DDTest
	for i, t := range tests {
		n := t.ProcessesOrDefault()
		if t.Operation == benchv1.DDWrite {
			written = max(written, n)
			continue
		}
		if t.Operation != benchv1.DDRead {
			continue
		}
		need = need || n > written
		files = max(files, n)
		if largest == nil || ddBytes(t) > ddBytes(*largest) {
			largest = &tests[i]
		}
	}
	if !need {
		return nil
	}
	rest := []string{"if=/dev/zero", "bs=" + cmp.Or(largest.BlockSize, "1M"), fmt.Sprintf("count=%d", largest.Count), "conv=fsync"}
	return ddCommand(files, "of", DDFilePath(dir, 0), rest, x)
}

// ddBytes is how many bytes a test copies per process (0 for a block size that
// is not a byte count).
func ddBytes(t benchv1.DDTest) int64 {
	bs := cmp.Or(t.BlockSize, "1M")
	mult := int64(1)
	switch bs[len(bs)-1] {
	case 'k', 'K':
		mult = 1 << 10
	case 'M':
		mult = 1 << 20
	case 'G':
		mult = 1 << 30
	}
	n, err := strconv.ParseInt(strings.TrimRight(bs, "kKMG"), 10, 64)
	if err != nil {
		return 0
	}
	return n * mult * t.Count
}
