package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/mpi"
)

func newStepsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "steps FILE",
		Short: "Run the steps of a launch file in order (the MPI launcher's command)",
		Long: `Run the command lines of FILE, a launch file (JSON: {"steps": [{"tests": [...],
"argv": [...]}]}, as benchwright writes for an MPIBenchmark's launcher), one after
the other, without a shell. Each step's stdout and stderr go to stdout between a
header and a trailer line:

  ==> benchwright step 1/2: mpirun -np 2 ... osu_latency -m 1:8 <==
  ==> benchwright step 1/2 exited with code 0 after 12.345s <==

Before the first step it waits (up to 2 minutes) until every host of the MPI
Operator's hostfile resolves, and, unless the file's MPI is OpenMPI, this pod's
own host name too: a pod's DNS name appears a moment after it started, and
MPICH's and Intel MPI's proxies dial the launcher by name (OpenMPI's daemons
call mpirun back at its address).

Before that, when the file names an MPI ("mpi": "OpenMPI", "MPICH" or "Intel"),
it asks the first step's mpirun for its version and stops with exit code 3 and
one line, "benchwright steps: wrong MPI: ...", if that is another MPI.

The run stops at the first step that fails and exits with its code (127: the
program is not on PATH). SIGTERM and SIGINT are passed to the running step; the
run stops once it ended, with exit code 143 or 130. The file's env is not used:
the launcher's environment is set where it runs.`,
		Example: `  benchwright steps /etc/benchwright/launch.json`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sigs := make(chan os.Signal, 2)
			signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
			defer signal.Stop(sigs)
			code, err := runStepsFile(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr(), sigs)
			if err != nil {
				return err
			}
			if code != 0 {
				// The step's trailer, or the wrong-MPI line, said why.
				return &exitError{code: code}
			}
			return nil
		},
	}
}

// runStepsFile runs the steps of a launch file and returns the exit code the
// command ends with.
func runStepsFile(ctx context.Context, file string, stdout, stderr io.Writer, sigs <-chan os.Signal) (int, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	var l mpi.Launch
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return 0, fmt.Errorf("%s: not a launch file: %w", file, err)
	}
	if len(l.Steps) == 0 {
		return 0, fmt.Errorf("%s: no steps", file)
	}
	for i, s := range l.Steps {
		if len(s.Argv) == 0 {
			return 0, fmt.Errorf("%s: step %d has no argv", file, i+1)
		}
	}
	if l.MPI != "" {
		if err := mpi.CheckFlavour(ctx, l.Steps[0].Argv[0], l.MPI); err != nil {
			fmt.Fprintln(stdout, mpi.MismatchPrefix+err.Error())
			return exitWrongMPI, nil
		}
	}
	// OpenMPI's daemons call mpirun back at its IP address; MPICH's and Intel
	// MPI's hydra proxies dial the launcher by name.
	waitForDNS(ctx, stderr, l.MPI != benchv1.OpenMPI)
	res, err := mpi.RunSteps(ctx, l.Steps, stdout, mpi.RunOptions{Signals: sigs})
	if err != nil {
		return 0, err
	}
	if s, ok := res.Signal.(syscall.Signal); ok {
		fmt.Fprintf(stderr, "benchwright steps: %v: passed on to the running step; stopped after %d of %d step(s)\n", s, res.Ran, len(l.Steps))
		return 128 + int(s), nil
	}
	return res.ExitCode, nil
}

// exitWrongMPI ends a run whose mpirun is not the spec's MPI.
const exitWrongMPI = 3

// dnsWait bounds waitForDNS: past it, mpirun runs and says what it cannot reach.
const dnsWait = 2 * time.Minute

// waitForDNS waits until the workers' names resolve and, when dialedBack,
// this pod's own address is in its headless Service's DNS answer (its own
// name resolves at once from /etc/hosts, but the workers find it through
// DNS), saying so on stderr when it waited or gave up. Without a hostfile
// (not an MPI Operator launcher) there is nothing to wait for.
func waitForDNS(ctx context.Context, stderr io.Writer, dialedBack bool) {
	hosts, err := mpi.HostfileHosts(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "benchwright steps: reading the hostfile: %v\n", err)
	}
	if len(hosts) == 0 {
		return
	}
	var service, ownIP string
	if self, err := os.Hostname(); err == nil && dialedBack {
		if svc, ip, ok := mpi.OwnRecord("/etc/hosts", self); ok {
			// Absolute: no search domain is tried first.
			service, ownIP = svc+".", ip
			hosts = append(hosts, service)
		}
	}
	lookup := func(ctx context.Context, host string) error {
		addrs, err := net.DefaultResolver.LookupHost(ctx, host)
		if err == nil && host == service && !slices.Contains(addrs, ownIP) {
			return fmt.Errorf("%s does not list this pod (%s) yet: %v", host, ownIP, addrs)
		}
		return err
	}
	took, err := mpi.WaitForHosts(ctx, hosts, dnsWait, lookup)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "benchwright steps: going on without DNS: %v\n", err)
	case took > time.Second:
		fmt.Fprintf(stderr, "benchwright steps: %s resolved after %s\n", strings.Join(hosts, ", "), took.Round(100*time.Millisecond))
	}
}
