/* osu_standin: stands in for an OSU micro-benchmark where none is installed.
 * Installed under a benchmark's name (osu_latency, osu_bw), it runs as an MPI
 * program under mpirun; rank 0 prints verbatim the file named by
 * $BENCHWRIGHT_STANDIN_<name> (a real OSU output), then all ranks meet in a
 * barrier. Its arguments are ignored. Without the variable or the file, rank 0
 * says so on stderr and aborts the job with code 3. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        char var[256];
        snprintf(var, sizeof(var), "BENCHWRIGHT_STANDIN_%s", name);
        const char *path = getenv(var);
        FILE *f = path ? fopen(path, "rb") : NULL;
        if (!f) {
            fprintf(stderr, "osu_standin: %s: %s\n", var, path ? "cannot open the file" : "not set");
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
            fwrite(buf, 1, n, stdout);
        fclose(f);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
