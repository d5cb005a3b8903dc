package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

// nodesJSON is a nodes.json of one node with its machine and a window.
const nodesJSON = `[{"hostname":"n1","machine_type":"e2","facts":{"machine_id":"4c4c","machine_id_source":"dmi","boot_id":"0f3c"},` +
	`"windows":[{"repetition":0,"start":"2026-11-28T12:00:00Z","end":"2026-11-28T12:00:10Z"}]}]`

// Each run's nodes.json, from a results directory and from a store, beside
// its samples; a run without one, or with garbage, gives none.
func TestRunNodes(t *testing.T) {
	dir := t.TempDir()
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for run, nodes := range map[string]string{"new": nodesJSON, "garbled": "{not json", "old": ""} {
		write(filepath.Join(dir, run, SamplesFile), "{}\n")
		if nodes != "" {
			write(filepath.Join(dir, run, NodesFile), nodes)
		}
	}
	for name, src := range map[string]NodesSource{"files": Files{dir}, "store": StoreRuns("file://" + dir)} {
		t.Run(name, func(t *testing.T) {
			inputs := map[string]string{}
			for _, run := range []string{"new", "garbled", "old"} {
				in := filepath.Join(dir, run, SamplesFile)
				if name == "store" {
					in = "file://" + in
				}
				inputs[in] = run
			}
			got := map[string][]results.NodeInfo{}
			var list []string
			for in := range inputs {
				list = append(list, in)
			}
			if err := src.RunNodes(context.Background(), list, func(in string, nodes []results.NodeInfo) { got[inputs[in]] = nodes }); err != nil {
				t.Fatal(err)
			}
			n := got["new"]
			if len(got) != 1 || len(n) != 1 || n[0].Facts.Machine() != "dmi:4c4c/boot:0f3c" || len(n[0].Windows) != 1 {
				t.Errorf("nodes %+v, want the new run's one node", got)
			}
		})
	}
}
