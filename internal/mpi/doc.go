// Package mpi builds mpirun command lines for OpenMPI, Intel MPI and MPICH with
// OSU, IMB-MPI1 and IOR arguments, and turns those tools' output into samples
// with the parsers of its subpackages osu, imb and ior (Parser picks a
// suite's).
package mpi
