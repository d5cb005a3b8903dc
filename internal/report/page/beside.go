package page

import (
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/interference"
	"github.com/benchwright/benchwright/internal/report/compare"
)

// The marks beside a ratio whose run or baseline was not alone on its
// machine.
const (
	markShared    = "‡"
	markDisturbed = "†"
)

// besideOf says whether any of marks overlapped another run on its machine,
// and whether any was disturbed by others' CPU use.
func besideOf(marks ...interference.Mark) (shared, disturbed bool) {
	for _, m := range marks {
		shared = shared || len(m.Overlapped) > 0
		disturbed = disturbed || len(m.Disturbed) > 0
	}
	return shared, disturbed
}

// besideMark is what a ratio's cell ends with when its run or its baseline
// (marks) was not alone: " ‡", " †", " ‡†"; "" when both were.
func besideMark(marks ...interference.Mark) string {
	shared, disturbed := besideOf(marks...)
	out := ""
	if shared {
		out += markShared
	}
	if disturbed {
		out += markDisturbed
	}
	if out == "" {
		return ""
	}
	return " " + out
}

// besideWords are a CSV line's beside column: "shared", "disturbed", both,
// or "".
func besideWords(marks ...interference.Mark) string {
	var out []string
	if shared, disturbed := besideOf(marks...); shared {
		out = append(out, "shared")
		if disturbed {
			out = append(out, "disturbed")
		}
	} else if disturbed {
		out = append(out, "disturbed")
	}
	return strings.Join(out, " ")
}

// besideLegend says what the marks of marks mean, for a table's note; ""
// when none is marked.
func besideLegend(marks ...interference.Mark) string {
	shared, disturbed := besideOf(marks...)
	var out []string
	if shared {
		out = append(out, markShared+" marks a ratio whose run or baseline ran while another run ran on the same machine")
	}
	if disturbed {
		out = append(out, markDisturbed+" one during a repetition of which processes other than the run's own used more than "+
			cores(interference.DefaultThreshold)+" of its machine's CPU")
	}
	return strings.Join(out, "; ")
}

// withLegend is note with the legend of marks, when any is marked.
func withLegend(note string, marks ...interference.Mark) string {
	if l := besideLegend(marks...); l != "" {
		return note + "; " + l
	}
	return note
}

// runMarks are the runs' marks.
func runMarks(runs []compare.Run) []interference.Mark {
	out := make([]interference.Mark, len(runs))
	for i, r := range runs {
		out[i] = r.Beside
	}
	return out
}

// alongMarks are the marks of a comparison's runs.
func alongMarks(a compare.Along) []interference.Mark {
	var out []interference.Mark
	for _, g := range a.Groups {
		out = append(out, g.Beside...)
	}
	return out
}

// groupMark is the mark of value v's ratio in group g: v's and the
// baseline's (base); none where the group has no marks.
func groupMark(g compare.AlongGroup, v, base int) string {
	if v >= len(g.Beside) || base < 0 || base >= len(g.Beside) {
		return ""
	}
	return besideMark(g.Beside[v], g.Beside[base])
}

// groupWords are groupMark as besideWords.
func groupWords(g compare.AlongGroup, v, base int) string {
	if v >= len(g.Beside) || base < 0 || base >= len(g.Beside) {
		return ""
	}
	return besideWords(g.Beside[v], g.Beside[base])
}

// besideText says in words what a run's mark holds: the runs it ran at the
// same time as on its machine and when, the repetitions others disturbed;
// "" when it was alone.
func besideText(m interference.Mark) string {
	var out []string
	if len(m.Overlapped) > 0 {
		out = append(out, markShared+" at the same time as "+strings.Join(m.OverlappedWith, ", ")+" on its machine ("+repetitions(m.Overlapped)+")")
	}
	if len(m.Disturbed) > 0 {
		out = append(out, markDisturbed+" disturbed: others used up to "+cores(m.MaxOthers)+" of its machine's CPU ("+repetitions(m.Disturbed)+")")
	}
	return strings.Join(out, "; ")
}

// repetitions lists repetitions: "repetition 0", "repetitions 0, 2".
func repetitions(reps []int) string {
	words := make([]string, len(reps))
	for i, r := range reps {
		words[i] = strconv.Itoa(r)
	}
	if len(reps) == 1 {
		return "repetition " + words[0]
	}
	return "repetitions " + strings.Join(words, ", ")
}

// cores writes a CPU share in cores: "0.1 of a core", "1.3 cores".
func cores(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	switch {
	case s == "1":
		return "1 core"
	case v < 1:
		return s + " of a core"
	}
	return s + " cores"
}
