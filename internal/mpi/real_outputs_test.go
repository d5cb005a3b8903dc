package mpi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// TestParseRealOutputs parses every real output by its suite's parser: each
// gives samples of the program it came from, from the version it printed.
// The outputs are in each parser's testdata/real (osu/, imb/, ior/): outputs
// of the real OSU, IMB and IOR built from their release sources on this
// project's machines (see their README.md).
func TestParseRealOutputs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("*", "testdata", "real", "*"))
	if err != nil {
		t.Fatal(err)
	}
	wantVersion := map[string]string{"osu": "7.4", "imb": "2021.11", "ior": "4.0.0"}
	parsed := 0
	for _, path := range files {
		name := filepath.Base(path)
		tool, _, _ := strings.Cut(name, "_")
		parse, ok := Parser(benchv1.MPISuite(tool))
		if !ok || strings.Contains(name, "summaryfile_stdout") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			samples, err := parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) < 2 {
				t.Fatalf("%d samples", len(samples))
			}
			for _, s := range samples {
				if v := s.Labels[results.LabelToolVersion]; v != wantVersion[tool] {
					t.Fatalf("%s %s: tool_version %q, want %q", s.Test, s.Metric, v, wantVersion[tool])
				}
				if s.Value < 0 || (s.Value == 0 && s.Labels[results.LabelMsgSize] != "0") {
					t.Fatalf("%s %s = %v", s.Test, s.Metric, s.Value)
				}
			}
		})
		parsed++
	}
	if parsed < 9 {
		t.Fatalf("parsed %d real outputs, want the 9 of osu/, imb/ and ior/testdata/real", parsed)
	}
}
