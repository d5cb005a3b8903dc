package mpi

import (
	"fmt"
	"regexp"
	"strings"
)

// OSUNeeds says which OSU versions benchwright's OSU command lines need, as
// OSU's own CHANGES dates the options: -i and -x came in 5.0, a minimum
// message size (-m MIN:MAX) in 5.3.1 for collectives and in 5.4.0 for
// point-to-point tests, -f (full statistics) on collectives long before.
const OSUNeeds = "benchwright's OSU command lines (-m MIN:MAX, -i, -x, and -f on collectives) need OSU 5.4 or later " +
	"(OSU 5.3 takes no -m on point-to-point tests); its images build OSU 7.4"

// OSUDirectories are where an OSU 7.x build leaves its MPI programs.
const OSUDirectories = "c/mpi/pt2pt/standard (osu_latency, osu_bw, osu_bibw, ...), c/mpi/collective/blocking " +
	"(osu_allreduce, osu_alltoall, osu_barrier, ...), c/mpi/collective/non_blocking (osu_iallreduce, ...) and c/mpi/one-sided"

var (
	// osuRejectedRE matches an option an OSU program refused: its own
	// "Invalid option [-m]" or getopt's "invalid option -- 'm'" and
	// "unrecognized option '--foo'".
	osuRejectedRE = regexp.MustCompile(`(?i)(?:invalid option \[(-{1,2}[^\]\s]+)\]|invalid option -- '(.)'|unrecognized option '(-{1,2}[^'\s]+)')`)
	// osuHeaderVersionRE reads the version of a header "# OSU MPI Latency Test v5.3".
	osuHeaderVersionRE = regexp.MustCompile(`(?m)^# OSU .*? v(\d+(?:\.\d+)*)\s*$`)
)

// StepHint explains a failed step from its program and output when
// benchwright recognises the cause; "" when it does not. It recognises an
// OSU program that refused one of its options (an OSU older than OSUNeeds)
// and an OSU program that is not installed (exit code 127).
func StepHint(program string, code int, output []byte) string {
	if !strings.HasPrefix(program, "osu_") {
		return ""
	}
	if code == ExitNotFound {
		return fmt.Sprintf("%s is not on PATH: an OSU 7.x build leaves its programs under %s; install them on PATH", program, OSUDirectories)
	}
	m := osuRejectedRE.FindSubmatch(output)
	if m == nil {
		return ""
	}
	opt := string(m[1])
	if len(m[2]) > 0 {
		opt = "-" + string(m[2])
	} else if len(m[3]) > 0 {
		opt = string(m[3])
	}
	version := ""
	if v := osuHeaderVersionRE.FindSubmatch(output); v != nil {
		version = " (v" + string(v[1]) + ")"
	}
	return fmt.Sprintf("%s%s refused its option %s: this OSU is too old or not OSU; %s", program, version, opt, OSUNeeds)
}
