/* A two-rank hybrid (MPI + OpenMP) archive written through libotf2 as Score-P 8.x writes one
 * (its OTF2 3.x tracing substrate, scorep_tracing_events.c, and its measurement regions,
 * define_measurement_regions in SCOREP_RuntimeManagement.c, as read in Score-P's source):
 * event for event, the sequence Score-P records, for what the archives Score-P itself wrote
 * (tests/fixtures/scorep) do not exercise: a hybrid run's threads, measurement regions.
 *   - location ids (thread << 32) | rank, one location per thread, locations in definition
 *     order rank 0 thread 0 (0), rank 0 thread 1 (4294967296), rank 1 thread 0 (1); location
 *     groups 0 and 1 (the processes);
 *   - the MPI COMM_LOCATIONS group {0, 1} and the OpenMP one {0, 4294967296, 1}, MPI_COMM_WORLD
 *     (comm 0) and the OpenMP thread team (comm 1, a group of paradigm OpenMP);
 *   - regions of Score-P's paradigms and roles: main (compiler instrumentation), foo (a user
 *     region, SCOREP_USER_REGION), "!$omp parallel @scorep.c:10" (OpenMP, role parallel), the
 *     MPI functions (MPI, role function/point2point), and the measurement's own artificial
 *     regions "MEASUREMENT OFF" (user) and "TRACE BUFFER FLUSH" (measurement system), defined
 *     but, as in Score-P's traces, never entered: the trace holds MeasurementOnOff and
 *     BufferFlush events instead;
 *   - ProgramBegin/ProgramEnd, ThreadFork/ThreadJoin and ThreadTeamBegin/End, which the
 *     importer does not read.
 * Ticks are ns (resolution 1e9), offset 0. Rank 0 (location 0):
 *   ProgramBegin 0; Enter main 5; MPI_Initialized [10,12]; MPI_Init [20,30]; Enter foo 35;
 *   ThreadFork 36; !$omp parallel [36,39]; ThreadJoin 39; Leave foo 40; MeasurementOnOff OFF
 *   45, ON 55; MPI_Send [60,70] (MpiSend to 1, comm 0, tag 3, 16 B); BufferFlush 75 (stop 80);
 *   MPI_Finalize [90,100]; MPI_Finalized [105,106]; Leave main 110; ProgramEnd 115.
 * Rank 0 thread 1 (location 4294967296): ThreadTeamBegin 36; !$omp parallel [36,39];
 *   ThreadTeamEnd 39.
 * Rank 1 (location 1): ProgramBegin 0; Enter main 5; MPI_Initialized [8,9]; MPI_Init [20,28];
 *   MPI_Recv [50,72] (MpiRecv from 0 at 72); MPI_Finalize [90,101]; Leave main 110;
 *   ProgramEnd 115.
 * Usage: scorep DIR VARIANT  (writes DIR/s.otf2). VARIANT:
 *   scorep     as above
 *   nolocs     without the MPI COMM_LOCATIONS group (ranks: each process's first location)
 *   sendfirst  rank 0 calls MPI_Send (MpiSend to 1) at [14,16], before MPI_Init
 *   sendlast   rank 0 calls MPI_Send (MpiSend to 1) at [105,106] instead of MPI_Finalized */
#include <otf2/otf2.h>
#include <string.h>

static OTF2_FlushType pre(void* u, OTF2_FileType t, OTF2_LocationRef l, void* c, bool f) {
    return OTF2_FLUSH;
}
static OTF2_FlushCallbacks flush = { pre, NULL };

enum { INITIALIZED, INIT, SEND, RECV, FIN, FINALIZED, MAIN, FOO, PARALLEL, MOFF, FLUSHR, NREGIONS };
enum { S_EMPTY, S_INITIALIZED, S_INIT, S_SEND, S_RECV, S_FIN, S_FINALIZED, S_MAIN, S_FOO, S_PARALLEL, S_MOFF,
       S_FLUSH, S_NODE, S_RANK0, S_RANK1, S_MASTER, S_THREAD1, S_WORLD, S_TEAM, S_PROG, NSTRINGS };

static const uint64_t T1 = 4294967296ull; /* rank 0, thread 1 */

static void send(OTF2_EvtWriter* w, uint64_t b, uint64_t e) {
    OTF2_EvtWriter_Enter(w, NULL, b, SEND);
    OTF2_EvtWriter_MpiSend(w, NULL, b, 1, 0, 3, 16);
    OTF2_EvtWriter_Leave(w, NULL, e, SEND);
}

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    const char* v = argv[2];
    OTF2_Archive* a = OTF2_Archive_Open(argv[1], "s", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) return 1;
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);

    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, 0);
    OTF2_EvtWriter_ProgramBegin(w, NULL, 0, S_PROG, 0, NULL);
    OTF2_EvtWriter_Enter(w, NULL, 5, MAIN);
    OTF2_EvtWriter_Enter(w, NULL, 10, INITIALIZED);
    OTF2_EvtWriter_Leave(w, NULL, 12, INITIALIZED);
    if (!strcmp(v, "sendfirst")) send(w, 14, 16);
    OTF2_EvtWriter_Enter(w, NULL, 20, INIT);
    OTF2_EvtWriter_Leave(w, NULL, 30, INIT);
    OTF2_EvtWriter_Enter(w, NULL, 35, FOO);
    OTF2_EvtWriter_ThreadFork(w, NULL, 36, OTF2_PARADIGM_OPENMP, 2);
    OTF2_EvtWriter_Enter(w, NULL, 36, PARALLEL);
    OTF2_EvtWriter_Leave(w, NULL, 39, PARALLEL);
    OTF2_EvtWriter_ThreadJoin(w, NULL, 39, OTF2_PARADIGM_OPENMP);
    OTF2_EvtWriter_Leave(w, NULL, 40, FOO);
    OTF2_EvtWriter_MeasurementOnOff(w, NULL, 45, OTF2_MEASUREMENT_OFF);
    OTF2_EvtWriter_MeasurementOnOff(w, NULL, 55, OTF2_MEASUREMENT_ON);
    send(w, 60, 70);
    OTF2_EvtWriter_BufferFlush(w, NULL, 75, 80);
    OTF2_EvtWriter_Enter(w, NULL, 90, FIN);
    OTF2_EvtWriter_Leave(w, NULL, 100, FIN);
    if (!strcmp(v, "sendlast")) {
        send(w, 105, 106);
    } else {
        OTF2_EvtWriter_Enter(w, NULL, 105, FINALIZED);
        OTF2_EvtWriter_Leave(w, NULL, 106, FINALIZED);
    }
    OTF2_EvtWriter_Leave(w, NULL, 110, MAIN);
    OTF2_EvtWriter_ProgramEnd(w, NULL, 115, 0);
    OTF2_Archive_CloseEvtWriter(a, w);

    w = OTF2_Archive_GetEvtWriter(a, T1);
    OTF2_EvtWriter_ThreadTeamBegin(w, NULL, 36, 1);
    OTF2_EvtWriter_Enter(w, NULL, 36, PARALLEL);
    OTF2_EvtWriter_Leave(w, NULL, 39, PARALLEL);
    OTF2_EvtWriter_ThreadTeamEnd(w, NULL, 39, 1);
    OTF2_Archive_CloseEvtWriter(a, w);

    w = OTF2_Archive_GetEvtWriter(a, 1);
    OTF2_EvtWriter_ProgramBegin(w, NULL, 0, S_PROG, 0, NULL);
    OTF2_EvtWriter_Enter(w, NULL, 5, MAIN);
    OTF2_EvtWriter_Enter(w, NULL, 8, INITIALIZED);
    OTF2_EvtWriter_Leave(w, NULL, 9, INITIALIZED);
    OTF2_EvtWriter_Enter(w, NULL, 20, INIT);
    OTF2_EvtWriter_Leave(w, NULL, 28, INIT);
    OTF2_EvtWriter_Enter(w, NULL, 50, RECV);
    OTF2_EvtWriter_MpiRecv(w, NULL, 72, 0, 0, 3, 16);
    OTF2_EvtWriter_Leave(w, NULL, 72, RECV);
    OTF2_EvtWriter_Enter(w, NULL, 90, FIN);
    OTF2_EvtWriter_Leave(w, NULL, 101, FIN);
    OTF2_EvtWriter_Leave(w, NULL, 110, MAIN);
    OTF2_EvtWriter_ProgramEnd(w, NULL, 115, 0);
    OTF2_Archive_CloseEvtWriter(a, w);
    OTF2_Archive_CloseEvtFiles(a);

    OTF2_Archive_OpenDefFiles(a);
    uint64_t locs[] = { 0, T1, 1 };
    for (int i = 0; i < 3; i++) OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, locs[i]));
    OTF2_Archive_CloseDefFiles(a);

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 120, OTF2_UNDEFINED_TIMESTAMP);
    const char* s[NSTRINGS] = { "", "MPI_Initialized", "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Finalize",
                                "MPI_Finalized", "main", "foo", "!$omp parallel @scorep.c:10", "MEASUREMENT OFF",
                                "TRACE BUFFER FLUSH", "node", "MPI Rank 0", "MPI Rank 1", "Master thread",
                                "OMP thread 1", "MPI_COMM_WORLD", "Thread team 0", "./app" };
    for (int i = 0; i < NSTRINGS; i++) OTF2_GlobalDefWriter_WriteString(g, i, s[i]);
    struct { uint32_t name; OTF2_RegionRole role; OTF2_Paradigm paradigm; } r[NREGIONS] = {
        [INITIALIZED] = { S_INITIALIZED, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
        [INIT] = { S_INIT, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
        [SEND] = { S_SEND, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [RECV] = { S_RECV, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
        [FIN] = { S_FIN, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
        [FINALIZED] = { S_FINALIZED, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
        [MAIN] = { S_MAIN, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER },
        [FOO] = { S_FOO, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER },
        [PARALLEL] = { S_PARALLEL, OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_OPENMP },
        [MOFF] = { S_MOFF, OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_USER },
        [FLUSHR] = { S_FLUSH, OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM },
    };
    for (int i = 0; i < NREGIONS; i++)
        OTF2_GlobalDefWriter_WriteRegion(g, i, r[i].name, r[i].name, S_EMPTY, r[i].role, r[i].paradigm,
                                         OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_NODE, S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, S_RANK0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, S_RANK1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, S_MASTER, OTF2_LOCATION_TYPE_CPU_THREAD, 20, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, T1, S_THREAD1, OTF2_LOCATION_TYPE_CPU_THREAD, 4, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 1, S_MASTER, OTF2_LOCATION_TYPE_CPU_THREAD, 13, 1);
    uint64_t mpi_locs[] = { 0, 1 }, ranks[] = { 0, 1 }, threads[] = { 0, 1 };
    if (strcmp(v, "nolocs"))
        OTF2_GlobalDefWriter_WriteGroup(g, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 2, mpi_locs);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks);
    OTF2_GlobalDefWriter_WriteGroup(g, 2, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, 3, locs);
    OTF2_GlobalDefWriter_WriteGroup(g, 3, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, 2, threads);
    OTF2_GlobalDefWriter_WriteComm(g, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(g, 1, S_TEAM, 3, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    return OTF2_Archive_Close(a) != OTF2_SUCCESS;
}
