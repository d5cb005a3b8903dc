package mpi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

// readReal reads a file of testdata/real: outputs of the real OSU, IMB and
// IOR built from their release sources on this project's machines (see its
// README.md).
func readReal(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParseRealOutputs parses every real output by its tool's parser: each
// gives samples of the program it came from, from the version it printed.
func TestParseRealOutputs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "real", "*"))
	if err != nil {
		t.Fatal(err)
	}
	parsers := map[string]func([]byte) ([]results.Sample, error){"osu": ParseOSU, "imb": ParseIMB, "ior": ParseIOR}
	wantVersion := map[string]string{"osu": "7.4", "imb": "2021.11", "ior": "4.0.0"}
	parsed := 0
	for _, path := range files {
		name := filepath.Base(path)
		tool, _, _ := strings.Cut(name, "_")
		parse := parsers[tool]
		if parse == nil || strings.Contains(name, "summaryfile_stdout") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			samples, err := parse(readReal(t, name))
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
		t.Fatalf("parsed %d real outputs, want the 9 of testdata/real", parsed)
	}
}
