package mpi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// mpirunPrefix is mpirun with rank count, ranks per node, CPU binding and
// environment, in the dialect of the implementation. The hosts come from the
// hostfile the MPI Operator writes and names in the launcher's environment
// (OMPI_MCA_orte_default_hostfile, I_MPI_HYDRA_HOST_FILE, HYDRA_HOST_FILE), so
// no -hostfile is given. env is what the launcher's own environment needs.
func mpirunPrefix(spec *benchv1.MPIBenchmarkSpec, opts Options) (argv []string, env []benchv1.EnvVar, err error) {
	l := spec.Layout
	n, rpn := strconv.Itoa(int(Ranks(spec))), strconv.Itoa(int(l.RanksPerNodeOrDefault()))
	binding := benchv1.CPUBinding{Policy: benchv1.BindCore}
	if l.CPUBinding != nil {
		binding = *l.CPUBinding
	}
	cpus, err := cpuList(binding)
	if err != nil {
		return nil, nil, err
	}
	switch impl := spec.MPI.ImplementationOrDefault(); impl {
	case benchv1.OpenMPI:
		argv = []string{"mpirun", "-np", n, "--map-by", "ppr:" + rpn + ":node"}
		if binding.Policy == benchv1.BindExplicit {
			// Rank i of a node runs on the i-th CPU of the set, counted in
			// ascending order: OpenMPI cannot follow any other order.
			if !slices.IsSorted(binding.CPUs) || len(slices.Compact(slices.Clone(binding.CPUs))) != len(binding.CPUs) {
				return nil, nil, fmt.Errorf("OpenMPI binds the ranks of a node to an explicit CPU list in ascending order: list cpuBinding.cpus ascending and without repeats, not %v", binding.CPUs)
			}
			argv = append(argv, "--cpu-set", cpus, "--bind-to", "cpu-list:ordered")
		} else {
			argv = append(argv, "--bind-to", string(binding.Policy))
		}
		argv = append(argv, "--report-bindings")
		if opts.Local {
			argv = append(argv, "--oversubscribe")
		} else if !hasEnv(spec.MPI.Env, cmaVariable) {
			// In a pod (seccomp RuntimeDefault, no CAP_SYS_PTRACE) the kernel
			// refuses the cross-memory attach of vader's single copy: every
			// large on-node message fails with "Read -1 ... errno = 1".
			// Copy through shared memory instead, unless the spec chose.
			argv = append(argv, "--mca", "btl_vader_single_copy_mechanism", "none")
		}
		for _, e := range spec.MPI.Env {
			argv = append(argv, "-x", e.Name+"="+e.Value)
		}
	case benchv1.IntelMPI:
		argv = []string{"mpirun", "-n", n, "-ppn", rpn}
		switch binding.Policy {
		case benchv1.BindNone:
			argv = append(argv, "-genv", "I_MPI_PIN", "0")
		case benchv1.BindExplicit:
			argv = append(argv, "-genv", "I_MPI_PIN_PROCESSOR_LIST", cpus)
		default:
			argv = append(argv, "-genv", "I_MPI_PIN_DOMAIN", string(binding.Policy))
		}
		for _, e := range spec.MPI.Env {
			argv = append(argv, "-genv", e.Name, e.Value)
		}
	case benchv1.MPICH:
		argv = []string{"mpirun", "-n", n, "-ppn", rpn}
		if binding.Policy == benchv1.BindExplicit {
			argv = append(argv, "-bind-to", "user:"+cpus)
		} else {
			argv = append(argv, "-bind-to", string(binding.Policy))
		}
		vars := slices.Clone(spec.MPI.Env)
		if !opts.Local && !hasEnv(vars, "UCX_NET_DEVICES") && !hasEnv(vars, "UCX_TLS") {
			// In a pod, UCX (MPICH's ch4:ucx) also offers the loopback device
			// to ranks on other nodes, and off-node runs hang after the
			// first header: keep it on the pod's network, unless the spec chose.
			vars = append(vars, benchv1.EnvVar{Name: "UCX_NET_DEVICES", Value: "eth0"})
		}
		if len(vars) > 0 {
			names := make([]string, len(vars))
			for i, e := range vars {
				names[i] = e.Name
			}
			// Hydra forwards the named variables from the launcher's
			// environment: the values never appear on a command line.
			argv = append(argv, "-envlist", strings.Join(names, ","))
			env = append(env, vars...)
		}
	default:
		return nil, nil, fmt.Errorf("unknown MPI implementation %q: use OpenMPI, Intel or MPICH", impl)
	}
	return argv, env, nil
}

// cmaVariable is OpenMPI's choice of on-node single-copy mechanism.
const cmaVariable = "OMPI_MCA_btl_vader_single_copy_mechanism"

func hasEnv(env []benchv1.EnvVar, name string) bool {
	return slices.ContainsFunc(env, func(e benchv1.EnvVar) bool { return e.Name == name })
}

// cpuList is the explicit binding's CPUs as "0,16,32"; empty for other policies.
func cpuList(b benchv1.CPUBinding) (string, error) {
	switch b.Policy {
	case benchv1.BindNone, benchv1.BindCore, benchv1.BindSocket:
		return "", nil
	case benchv1.BindExplicit:
		if len(b.CPUs) == 0 {
			return "", fmt.Errorf("explicit cpuBinding needs cpus")
		}
		parts := make([]string, len(b.CPUs))
		for i, c := range b.CPUs {
			parts[i] = strconv.Itoa(int(c))
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("unknown cpuBinding policy %q: use none, core, socket or explicit", b.Policy)
}
