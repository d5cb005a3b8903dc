/* probe: each MPI rank prints its rank, the rank count, the CPUs it may run
 * on and the value of BENCHWRIGHT_PROBE, so a test can check that an mpirun
 * command line places, binds and passes environment as it should. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof(set), &set);
    char cpus[4096] = "";
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < (int)sizeof(cpus) - 8; c++)
        if (CPU_ISSET(c, &set)) n += snprintf(cpus + n, sizeof(cpus) - n, n ? ",%d" : "%d", c);
    const char *env = getenv("BENCHWRIGHT_PROBE");
    printf("probe rank=%d size=%d cpus=%s env=%s args=%d\n", rank, size, cpus, env ? env : "-", argc - 1);
    MPI_Finalize();
    return 0;
}
