package local

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
)

// MissingProgramsError names the programs a local MPI run needs that are not
// on PATH, and what provides them.
type MissingProgramsError struct {
	// Programs are the missing programs as the steps name them.
	Programs []string
	// Providers says, per group of programs, where to get them.
	Providers []string
}

func (e *MissingProgramsError) Error() string {
	return "programs not installed or not on PATH:\n  " + strings.Join(e.Providers, "\n  ")
}

// Where the programs of each suite come from. %s is the missing programs.
const (
	mpirunProvider = "%s: an MPI's mpirun: sudo apt-get install openmpi-bin (Open MPI) or mpich (MPICH); " +
		"choose another one with --mpirun, e.g. --mpirun mpirun.mpich"
	osuProvider = "%s: the OSU micro-benchmarks (5.4 or later; 7.x recommended), https://mvapich.cse.ohio-state.edu/benchmarks/: " +
		"build them with this MPI's mpicc (./configure CC=mpicc CXX=mpicxx && make) and put the directories " +
		"holding the programs on PATH: in OSU 7.x " + mpi.OSUDirectories
	imbProvider = "%s: the Intel MPI Benchmarks, https://github.com/intel/mpi-benchmarks: " +
		"build with this MPI's mpicc (make IMB-MPI1 CC=mpicc CXX=mpicxx) and put the directory holding IMB-MPI1 on PATH"
	iorProvider = "%s: IOR, https://github.com/hpc/ior: build with this MPI's mpicc " +
		"(./bootstrap && ./configure CC=mpicc && make) and put src/ior on PATH"
)

// providers say where each suite's programs come from.
var suiteProviders = map[benchv1.MPISuite]string{
	benchv1.SuiteOSU: osuProvider, benchv1.SuiteIMB: imbProvider, benchv1.SuiteIOR: iorProvider,
}

// checkPrograms finds every step's mpirun and benchmark program on PATH.
func checkPrograms(suite benchv1.MPISuite, steps []mpi.Step) error {
	var missing []string
	byProvider := map[string][]string{}
	var providers []string
	need := func(program, provider string) {
		if _, err := exec.LookPath(program); err == nil || slices.Contains(missing, program) {
			return
		}
		missing = append(missing, program)
		if _, seen := byProvider[provider]; !seen {
			providers = append(providers, provider)
		}
		byProvider[provider] = append(byProvider[provider], program)
	}
	for _, s := range steps {
		need(s.Argv[0], mpirunProvider)
		need(s.Program, suiteProviders[suite])
	}
	if len(missing) == 0 {
		return nil
	}
	e := &MissingProgramsError{Programs: missing}
	for _, p := range providers {
		e.Providers = append(e.Providers, fmt.Sprintf(p, strings.Join(byProvider[p], ", ")))
	}
	return e
}

// checkMPIRun asks mpirun which MPI it is and fails when that is not the
// spec's: the command line is in the spec's dialect. It returns mpirun's
// version line for the progress output.
func checkMPIRun(ctx context.Context, mpirun string, want benchv1.MPIImplementation) (string, error) {
	got, version := mpi.AskMPIRun(ctx, mpirun)
	if got == "" {
		return mpirun + " (MPI not recognized from --version)", nil
	}
	if got != want {
		return "", fmt.Errorf("the spec's mpi.implementation is %s, but %s is %s (%s): its command line would not fit; "+
			"choose the %s mpirun with --mpirun%s", want, mpirun, got, version, want, mpirunExample[want])
	}
	return mpirun + " (" + version + ")", nil
}

// mpirunExample names the Debian mpirun of an implementation.
var mpirunExample = map[benchv1.MPIImplementation]string{
	benchv1.OpenMPI: ", e.g. --mpirun mpirun.openmpi",
	benchv1.MPICH:   ", e.g. --mpirun mpirun.mpich",
}
