package page

import (
	"fmt"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// ladderGrid is the ladder as a table: a row per step, a column per fact,
// and what the step changed.
func ladderGrid(facts []compare.LadderFact, steps []compare.LadderStep) *grid {
	g := &grid{header: []string{"step", "run"}, right: []bool{true, false}}
	for _, f := range facts {
		g.header, g.right = append(g.header, f.Name), append(g.right, false)
	}
	g.header, g.right = append(g.header, "changed from the step before"), append(g.right, false)
	for i, s := range steps {
		changes := strings.Join(s.Changes, "; ")
		if i == 0 {
			changes = "(first step)"
		} else if changes == "" {
			changes = "nothing recorded"
		}
		g.add(append(append([]string{fmt.Sprint(i + 1), s.Run}, s.Values...), changes)...)
	}
	return g
}
