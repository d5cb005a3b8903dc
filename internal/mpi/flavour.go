package mpi

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// MismatchPrefix starts the line a launcher prints, instead of any step, when
// its mpirun is not the MPI the spec names (CheckFlavour).
const MismatchPrefix = "benchwright steps: wrong MPI: "

// CheckFlavour fails when mpirun is a known MPI other than want, saying which
// it is and what to change; an mpirun it cannot tell passes (the steps then
// say what went wrong).
func CheckFlavour(ctx context.Context, mpirun string, want benchv1.MPIImplementation) error {
	got, version := AskMPIRun(ctx, mpirun)
	if got == "" || got == want {
		return nil
	}
	return fmt.Errorf("this image's %s is %s (%s), but the MPIBenchmark's mpi.implementation is %s: "+
		"use an image built with %s, or set mpi.implementation: %s", mpirun, got, version, want, want, got)
}

// maxMismatch bounds the line MismatchIn quotes.
const maxMismatch = 1024

// MismatchIn finds the line CheckFlavour's failure printed in a launcher log.
func MismatchIn(log []byte) (string, bool) {
	for line := range bytes.Lines(log) { // no copy of a log of up to 16 MiB
		if msg, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(MismatchPrefix)); ok {
			return string(msg[:min(len(msg), maxMismatch)]), true
		}
	}
	return "", false
}

// AskMPIRun asks mpirun (--version, for up to 10 s) which MPI it is;
// "" when the answer is not one Flavour knows.
func AskMPIRun(ctx context.Context, mpirun string) (impl benchv1.MPIImplementation, version string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, mpirun, "--version").CombinedOutput()
	return Flavour(string(out))
}

// Flavour reads mpirun --version: "mpirun (Open MPI) 4.1.4",
// "mpirun.openmpi (OpenRTE) 4.1.4", "HYDRA build details: Version: 4.0.2"
// (MPICH), "Intel(R) MPI Library for Linux* OS, Version 2021.6".
func Flavour(out string) (impl benchv1.MPIImplementation, version string) {
	first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	switch {
	case strings.Contains(out, "Intel(R) MPI Library"):
		return benchv1.IntelMPI, strings.TrimSpace(first)
	case strings.Contains(first, "(Open MPI)") || strings.Contains(first, "(OpenRTE)"):
		f := strings.Fields(first)
		return benchv1.OpenMPI, "Open MPI " + f[len(f)-1]
	case strings.Contains(out, "HYDRA build details"):
		for line := range strings.Lines(out) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Version:"); ok {
				return benchv1.MPICH, "MPICH " + strings.TrimSpace(v)
			}
		}
		return benchv1.MPICH, "MPICH"
	}
	return "", ""
}
