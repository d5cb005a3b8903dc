package podlogs

import "strings"

// Bounds of what a condition message quotes of a tool's log.
const (
	tailLines      = 15
	tailBytes      = 2048
	maxDiagnostics = 8
)

// Diagnostics quotes what a failed tool said about its failure: its own error
// lines ("fio: ...", "dd: ...", "ior ERROR: ...", MPI's "ORTE"/"HYDU" lines),
// or else the tail of its log (fio prints its JSON report even when a job
// fails, and the report's end says nothing about why).
func Diagnostics(log []byte) string {
	var said []string
	for line := range strings.Lines(string(log)) {
		line = strings.TrimSpace(line)
		if isDiagnostic(line) {
			said = append(said, line)
		}
	}
	if len(said) == 0 {
		return Tail(log)
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

func isDiagnostic(line string) bool {
	for _, p := range []string{"fio: ", "dd: ", "ior ERROR", "ERROR:", "mpirun ", "mpiexec", "[mpiexec@", "HYDU_", "ORTE ", "MPI_ABORT", "Abort(", "Fatal error in "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return strings.Contains(line, ", err=")
}

// Tail quotes the last lines of a log for a condition message.
func Tail(log []byte) string {
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
