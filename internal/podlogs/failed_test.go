package podlogs

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/test/fixtures"
)

// refDiagnostics and refTail are Diagnostics and Tail as they were, copying
// and splitting the whole log: the bounded ones must say the same.
func refDiagnostics(log []byte) string {
	var said []string
	for line := range strings.Lines(string(log)) {
		line = strings.TrimSpace(line)
		if isDiagnostic([]byte(line)) {
			said = append(said, line)
		}
	}
	if len(said) == 0 {
		return refTail(log)
	}
	if len(said) > maxDiagnostics {
		said = append(said[:maxDiagnostics], "…")
	}
	out := strings.Join(said, "\n")
	if len(out) > tailBytes {
		out = out[:tailBytes] + "…"
	}
	return "it said:\n" + out
}

func refTail(log []byte) string {
	text := strings.TrimRight(string(log), "\n")
	if text == "" {
		return "(the tool printed nothing)"
	}
	lines := strings.Split(text, "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	out := strings.Join(lines, "\n")
	if len(out) > tailBytes {
		out = "…" + out[len(out)-tailBytes:]
	}
	return "last lines of the output:\n" + out
}

// wholeLog is a LogReader that cannot stream.
type wholeLog []byte

func (l wholeLog) ReadLog(context.Context, string, string, string) ([]byte, error) { return l, nil }

// FuzzQuote: the bounded Diagnostics and Tail say what the whole-log ones
// said, and so does a log read as a stream (ReadFailed), whatever the log.
func FuzzQuote(f *testing.F) {
	f.Add([]byte("fio: pread failed\nthe end\n"))
	f.Add([]byte(strings.Repeat("line\n", 40)))
	f.Add([]byte(strings.Repeat("x", 3000) + "\n" + strings.Repeat("y", 100)))
	f.Add([]byte(strings.Repeat("fio: err\n", 12)))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte("a\nb\n" + strings.Repeat("z", 2047) + "\n"))
	f.Fuzz(func(t *testing.T, log []byte) {
		if got, want := Diagnostics(log), refDiagnostics(log); got != want {
			t.Fatalf("Diagnostics\n%q\nwant\n%q", got, want)
		}
		if got, want := Tail(log), refTail(log); got != want {
			t.Fatalf("Tail\n%q\nwant\n%q", got, want)
		}
		for line := range bytes.Lines(log) {
			if len(line) > maxLine {
				return // a stream looks at a line's first maxLine bytes
			}
		}
		failed, err := ReadFailed(context.Background(), wholeLog(log), capPod, "fio", 0, nil)
		if err != nil || failed.Quote() != Quote(log, nil) {
			t.Fatalf("ReadFailed quotes\n%q (%v)\nwant\n%q", failed.Quote(), err, Quote(log, nil))
		}
	})
}

// A log over MaxLogBytes is not stored (the store sees an error and drops
// what it wrote) and its end is quoted; one at the cap is stored whole.
func TestReadFailedOverTheCap(t *testing.T) {
	for _, tc := range []struct {
		size     int
		tooLarge bool
	}{{MaxLogBytes, false}, {MaxLogBytes + 1, true}, {MaxLogBytes + 4096, true}} {
		log := fixtures.HugeLog{Line: []byte("progress\n"), End: []byte("fio: the last words\n"), Size: tc.size}
		var stored int64
		var storeErr error
		failed, err := ReadFailed(context.Background(), log, capPod, "fio", 0, func(r io.Reader) error {
			stored, storeErr = io.Copy(io.Discard, r)
			return storeErr
		})
		if err != nil {
			t.Fatalf("%d bytes: %v", tc.size, err)
		}
		if failed.TooLarge != tc.tooLarge || (storeErr != nil) != tc.tooLarge {
			t.Errorf("%d bytes: too large %v, the store's read %d bytes, %v", tc.size, failed.TooLarge, stored, storeErr)
		}
		if !strings.Contains(failed.Quote(), "fio: the last words") || tc.tooLarge != strings.Contains(failed.Quote(), "over the 16 MiB") {
			t.Errorf("%d bytes: quote %q", tc.size, failed.Quote())
		}
	}
	failed, err := ReadFailed(context.Background(), &countingLog{log: nil}, capPod, "fio", 0, nil)
	if err != nil || failed.Quote() != "last lines of the output:\n(the tool printed nothing)" && !strings.Contains(failed.Quote(), "printed nothing") {
		t.Errorf("an empty log: %q, %v", failed.Quote(), err)
	}
}
