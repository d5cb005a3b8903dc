package mpi

import "testing"

func TestMPIFlavour(t *testing.T) {
	for out, want := range map[string][2]string{
		"mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n": {"OpenMPI", "Open MPI 4.1.4"},
		"mpirun.openmpi (OpenRTE) 4.1.4\n":                                                   {"OpenMPI", "Open MPI 4.1.4"},
		"HYDRA build details:\n    Version:                                 4.0.2\n":         {"MPICH", "MPICH 4.0.2"},
		"Intel(R) MPI Library for Linux* OS, Version 2021.6 Build 20220227 (id: 28877f3f32)": {"Intel", "Intel(R) MPI Library for Linux* OS, Version 2021.6 Build 20220227 (id: 28877f3f32)"},
		"bash: mpirun: command not found":                                                    {"", ""},
	} {
		impl, version := Flavour(out)
		if got := [2]string{string(impl), version}; got != want {
			t.Errorf("%q: got %q, want %q", out, got, want)
		}
	}
}
