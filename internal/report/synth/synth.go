// Package synth makes synthetic samples of the size of a large campaign, to
// measure what reports over them cost.
package synth

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// Samples are runs x reps x tests x sizes OSU-like latency samples: run r is
// benchmark "run-rr" on its own machine type, each test a latency curve over
// message sizes 1 B .. 2^(sizes-1) B with a spread of a few percent.
func Samples(runs, reps, tests, sizes int) []results.Sample {
	out := make([]results.Sample, 0, runs*reps*tests*sizes)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for r := range runs {
		bench := fmt.Sprintf("run-%02d", r)
		machine := fmt.Sprintf("machine-%02d", r%7)
		for rep := range reps {
			ts := start.Add(time.Duration(r*reps+rep) * time.Minute)
			for t := range tests {
				test := fmt.Sprintf("test-%02d", t)
				for s := range sizes {
					size := math.Exp2(float64(s))
					base := (2 + float64(r%5)) * (1 + float64(t)/25) * (1 + size/4096)
					jitter := 1 + 0.03*math.Sin(float64(r*31+rep*17+t*7+s))
					out = append(out, results.Sample{
						RunUID: "uid-" + bench, Kind: "MPIBenchmark", Namespace: "bench", Benchmark: bench,
						Test: test, Metric: "latency", Unit: "us", Value: base * jitter, Repetition: rep, Timestamp: ts,
						Labels: map[string]string{
							results.LabelMsgSize: strconv.FormatFloat(size, 'f', -1, 64), results.LabelMachineType: machine,
							results.LabelTool: "osu", results.LabelNode: "node-" + strconv.Itoa(r),
						},
					})
				}
			}
		}
	}
	return out
}
