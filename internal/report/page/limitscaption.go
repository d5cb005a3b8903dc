package page

import (
	"fmt"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// maxCaptionLimits is how many limits a plot's caption names.
const maxCaptionLimits = 4

// limitsCaption says, after a plot's caption, which of its runs' nodes
// reached a limit during which of its tests; limits are each run's by test
// (TestLimits).
func limitsCaption(runs []compare.Run, limits []map[string]string, ris []int, tests []string) string {
	var notes []string
	for _, ri := range ris {
		for _, t := range tests {
			if l, ok := limits[ri][t]; ok {
				notes = append(notes, fmt.Sprintf("%s, %s: %s", runs[ri].Label(), t, l))
			}
		}
	}
	if len(notes) == 0 {
		return ""
	}
	more := ""
	if len(notes) > maxCaptionLimits {
		more = fmt.Sprintf("; and %d more", len(notes)-maxCaptionLimits)
		notes = notes[:maxCaptionLimits]
	}
	return " At a limit (see " + nodesHeading + "): " + strings.Join(notes, "; ") + more + "."
}
