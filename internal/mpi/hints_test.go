package mpi

import (
	"strings"
	"testing"
)

func TestStepHint(t *testing.T) {
	tests := []struct {
		name, program string
		code          int
		output        string
		want          string // "" for no hint
	}{{
		// OSU 7.4's own message, as the real osu_latency prints it for -Z.
		name: "OSU's message", program: "osu_latency", code: 1,
		output: "Invalid option [-Z]\n\nUsage: osu_latency [options]\nOptions:\n",
		want:   "osu_latency refused its option -Z: this OSU is too old or not OSU; " + OSUNeeds,
	}, {
		name: "getopt's, with the header's version", program: "osu_bw", code: 1,
		output: "# OSU MPI Bandwidth Test v5.3\n/usr/local/bin/osu_bw: invalid option -- 'm'\n",
		want:   "osu_bw (v5.3) refused its option -m:",
	}, {
		name: "long option", program: "osu_allreduce", code: 1,
		output: "osu_allreduce: unrecognized option '--validation'\n",
		want:   "refused its option --validation:",
	}, {
		name: "not installed", program: "osu_latency", code: ExitNotFound,
		output: "benchwright: step 1/1: osu_latency not found\n",
		want:   "c/mpi/pt2pt/standard (osu_latency",
	}, {
		name: "another failure", program: "osu_latency", code: 1,
		output: "Abort(1) on node 0: Fatal error in internal_Init\n",
	}, {
		name: "not OSU", program: "IMB-MPI1", code: 1, output: "Invalid option [-m]\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := StepHint(tc.program, tc.code, []byte(tc.output))
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("StepHint = %q, want one containing %q", got, tc.want)
			}
		})
	}
}
