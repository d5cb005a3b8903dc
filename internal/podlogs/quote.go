package podlogs

import (
	"bytes"
	"strings"
)

// Bounds of what a condition message quotes of a tool's log.
const (
	tailLines      = 15
	tailBytes      = 2048
	maxDiagnostics = 8
)

// Diagnostics quotes what a failed tool said about its failure: its own error
// lines ("fio: ...", "dd: ...", "ior ERROR: ...", MPI's "ORTE"/"HYDU" lines),
// or else the tail of its log (fio prints its JSON report even when a job
// fails, and the report's end says nothing about why). It copies no more of
// the log than it quotes: a 16 MiB log costs a scan, not its size again.
func Diagnostics(log []byte) string {
	var d diagnostics
	for line := range bytes.Lines(log) {
		if !d.add(line) {
			break
		}
	}
	if len(d.said) == 0 {
		return Tail(log)
	}
	return d.String()
}

// diagnostics collects a log's diagnostic lines, up to maxDiagnostics and
// whether there were more.
type diagnostics struct {
	said []string
	more bool
}

// add looks at one line; false once no more lines are wanted.
func (d *diagnostics) add(line []byte) bool {
	line = bytes.TrimSpace(line)
	if !isDiagnostic(line) {
		return true
	}
	if len(d.said) == maxDiagnostics {
		d.more = true
		return false
	}
	// Past tailBytes the quote is cut anyway.
	d.said = append(d.said, string(line[:min(len(line), tailBytes+1)]))
	return true
}

func (d *diagnostics) String() string {
	said := d.said
	if d.more {
		said = append(said[:len(said):len(said)], "…")
	}
	out := strings.Join(said, "\n")
	if len(out) > tailBytes {
		out = out[:tailBytes] + "…"
	}
	return "it said:\n" + out
}

var diagnosticPrefixes = [][]byte{
	[]byte("fio: "), []byte("dd: "), []byte("ior ERROR"), []byte("ERROR:"), []byte("mpirun "), []byte("mpiexec"),
	[]byte("[mpiexec@"), []byte("HYDU_"), []byte("ORTE "), []byte("MPI_ABORT"), []byte("Abort("), []byte("Fatal error in "),
}

func isDiagnostic(line []byte) bool {
	for _, p := range diagnosticPrefixes {
		if bytes.HasPrefix(line, p) {
			return true
		}
	}
	return bytes.Contains(line, []byte(", err="))
}

// Tail quotes the last lines of a log for a condition message. It looks at
// no more of the log than it may quote.
func Tail(log []byte) string {
	text := bytes.TrimRight(log, "\n")
	if len(text) == 0 {
		return "(the tool printed nothing)"
	}
	// The last tailLines lines start after the tailLines-th newline from the
	// end; past tailBytes+1 bytes back, they are cut to tailBytes anyway.
	window := text[max(0, len(text)-tailBytes-1):]
	start, end, found := 0, len(window), 0
	for found < tailLines {
		i := bytes.LastIndexByte(window[:end], '\n')
		if i < 0 {
			break
		}
		start, end, found = i+1, i, found+1
	}
	if found < tailLines {
		if len(window) < len(text) { // they start before the window: too long
			return "last lines of the output:\n…" + string(text[len(text)-tailBytes:])
		}
		start = 0 // the whole text
	}
	if len(window)-start > tailBytes {
		return "last lines of the output:\n…" + string(text[len(text)-tailBytes:])
	}
	return "last lines of the output:\n" + string(window[start:])
}
