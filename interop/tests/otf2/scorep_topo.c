/* scorep_topo: the communicator constructors of MPI-2.2 and MPI-3 that the other Score-P
 * fixtures do not make, for the OTF2 importer's tests (scripts/make-scorep-fixtures.sh): a
 * communicator of the even ranks from MPI_Comm_create_group (collective over that group only),
 * a ring from MPI_Dist_graph_create_adjacent (each rank names its two neighbours) and one
 * from MPI_Dist_graph_create (rank 0 names every edge), each used by an MPI_Allreduce and
 * freed. At 4 ranks (2 or more). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, v = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, range, &evens);
    if (rank % 2 == 0) {
        MPI_Comm even;
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &even);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, even);
        MPI_Comm_free(&even);
    }

    int nb[2] = {(rank + size - 1) % size, (rank + 1) % size};
    MPI_Comm ring;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, MPI_UNWEIGHTED, 2, nb, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &ring);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, ring);
    MPI_Comm_free(&ring);

    int sources[1] = {0}, degrees[1] = {0}, dest[64];
    if (rank == 0) {
        degrees[0] = size;
        for (int i = 0; i < size; i++)
            dest[i] = (i + 1) % size;
    }
    MPI_Comm graph;
    MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? 1 : 0, sources, degrees, dest, MPI_UNWEIGHTED, MPI_INFO_NULL, 1,
                          &graph);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, graph);
    MPI_Comm_free(&graph);

    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    if (rank == 0)
        printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
