package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// baselineFlag is --baseline, repeatable: DIMENSION=VALUE names a
// dimension's baseline (pool=c2, machine_type=c3-highcpu-176); a word
// without '=' names the run the others are compared with where the runs
// differ in no dimension (the flag's first form, kept). Kubernetes names
// hold no '=', so the two never mix up.
type baselineFlag []string

func (b *baselineFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar((*[]string)(b), "baseline", nil,
		"DIMENSION=VALUE: the baseline of a dimension the runs differ in (pool=c2, benchmark=1pd, machine_type=c2-standard-60; repeat for each; default: its first value); or RUN: the run the others are compared with, one by one (default: the first)")
}

// parse splits the flags into a run's name and the dimensions' baselines.
func (b baselineFlag) parse() (run string, dims map[string]string, err error) {
	for _, arg := range b {
		dim, value, ok := strings.Cut(arg, "=")
		switch {
		case !ok && run != "" && run != arg:
			return "", nil, fmt.Errorf("--baseline %s and --baseline %s: one run is the baseline (or give DIMENSION=VALUE)", run, arg)
		case !ok:
			run = arg
		case dim == "" || value == "":
			return "", nil, fmt.Errorf("--baseline %q: want DIMENSION=VALUE, e.g. pool=c2", arg)
		case dims[dim] != "" && dims[dim] != value:
			return "", nil, fmt.Errorf("--baseline %s=%s and %s=%s: one baseline per dimension", dim, dims[dim], dim, value)
		default:
			if dims == nil {
				dims = map[string]string{}
			}
			dims[dim] = value
		}
	}
	return run, dims, nil
}

// lead are the dimensions the flags name, in their order: the report leads
// with their comparisons.
func (b baselineFlag) lead() []string {
	var out []string
	for _, arg := range b {
		if dim, _, ok := strings.Cut(arg, "="); ok && !slices.Contains(out, dim) {
			out = append(out, dim)
		}
	}
	return out
}
