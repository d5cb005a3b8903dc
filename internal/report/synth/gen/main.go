// Command gen writes synthetic samples as NDJSON, for measuring reports:
//
//	go run ./internal/report/synth/gen -o /tmp/100k.ndjson
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/benchwright/benchwright/internal/report/synth"
	"github.com/benchwright/benchwright/internal/results"
)

func main() {
	out := flag.String("o", "", "output file (default: standard output)")
	runs := flag.Int("runs", 20, "runs")
	reps := flag.Int("reps", 5, "repetitions per run")
	tests := flag.Int("tests", 50, "tests per run")
	sizes := flag.Int("sizes", 20, "message sizes per test")
	flag.Parse()
	if err := write(*out, synth.Samples(*runs, *reps, *tests, *sizes)); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(path string, samples []results.Sample) error {
	if path == "" {
		return results.WriteNDJSON(os.Stdout, samples)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = results.WriteNDJSON(f, samples)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
