package benchrun

import (
	"sort"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// RecordNodes adds nodes and their machine types to the status.
func RecordNodes(st *benchv1.BenchmarkStatusCommon, nodes []results.NodeInfo) {
	names := map[string]bool{}
	for _, n := range st.Nodes {
		names[n] = true
	}
	types := map[string]bool{}
	for _, t := range strings.Split(st.MachineType, ",") {
		if t != "" {
			types[t] = true
		}
	}
	for _, n := range nodes {
		if n.Hostname != "" {
			names[n.Hostname] = true
		}
		if n.MachineType != "" {
			types[n.MachineType] = true
		}
	}
	st.Nodes = sortedKeys(names, 128)
	st.MachineType = strings.Join(sortedKeys(types, 8), ",")
}

func sortedKeys(m map[string]bool, limit int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
