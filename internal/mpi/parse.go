package mpi

import (
	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi/imb"
	"github.com/benchwright/benchwright/internal/mpi/ior"
	"github.com/benchwright/benchwright/internal/mpi/osu"
	"github.com/benchwright/benchwright/internal/results"
)

// parsers read each suite's output.
var parsers = map[benchv1.MPISuite]func([]byte) ([]results.Sample, error){
	benchv1.SuiteOSU: osu.Parse,
	benchv1.SuiteIMB: imb.Parse,
	benchv1.SuiteIOR: ior.Parse,
}

// Parser returns the parser of suite's output (osu.Parse, imb.Parse or
// ior.Parse); ok is false for an unknown suite.
func Parser(suite benchv1.MPISuite) (parse func([]byte) ([]results.Sample, error), ok bool) {
	parse, ok = parsers[suite]
	return parse, ok
}
