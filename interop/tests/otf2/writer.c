/* A two-rank OTF2 archive written through libotf2 itself, as a tool other than psins would:
 * microsecond ticks from a global offset, locations 100 and 200 (ranks by the COMM_LOCATIONS
 * group), MPI_COMM_WORLD under id 7, a user region nested in the computation.
 *   rank 0: MPI_Init [1000,1002]; foo [1005,1010]; MPI_Send to 1, tag 5, 64 B [1012,1015];
 *           MPI_Allreduce 8 B [1020,1030]; MPI_Finalize [1040,1041]
 *   rank 1: MPI_Init [1000,1001]; MPI_Recv from 0, tag 5, 64 B [1003,1016];
 *           MPI_Allreduce [1021,1030]; MPI_Finalize [1031,1033]
 * Usage: writer DIR  (writes DIR/w.otf2). */
#include <otf2/otf2.h>
#include <stdio.h>

static OTF2_FlushType pre(void* u, OTF2_FileType t, OTF2_LocationRef l, void* c, bool f) {
    return OTF2_FLUSH;
}
static OTF2_FlushCallbacks flush = { pre, NULL };

enum { INIT, SEND, RECV, ALLRED, FIN, FOO };

int main(int argc, char** argv) {
    OTF2_Archive* a = OTF2_Archive_Open(argv[1], "w", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) return 1;
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, 100);
    OTF2_EvtWriter_Enter(w, NULL, 1000, INIT); OTF2_EvtWriter_Leave(w, NULL, 1002, INIT);
    OTF2_EvtWriter_Enter(w, NULL, 1005, FOO); OTF2_EvtWriter_Leave(w, NULL, 1010, FOO);
    OTF2_EvtWriter_Enter(w, NULL, 1012, SEND);
    OTF2_EvtWriter_MpiSend(w, NULL, 1012, 1, 7, 5, 64);
    OTF2_EvtWriter_Leave(w, NULL, 1015, SEND);
    OTF2_EvtWriter_Enter(w, NULL, 1020, ALLRED);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 1020);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 1030, OTF2_COLLECTIVE_OP_ALLREDUCE, 7, OTF2_UNDEFINED_UINT32, 8, 8);
    OTF2_EvtWriter_Leave(w, NULL, 1030, ALLRED);
    OTF2_EvtWriter_Enter(w, NULL, 1040, FIN); OTF2_EvtWriter_Leave(w, NULL, 1041, FIN);
    OTF2_Archive_CloseEvtWriter(a, w);
    w = OTF2_Archive_GetEvtWriter(a, 200);
    OTF2_EvtWriter_Enter(w, NULL, 1000, INIT); OTF2_EvtWriter_Leave(w, NULL, 1001, INIT);
    OTF2_EvtWriter_Enter(w, NULL, 1003, RECV);
    OTF2_EvtWriter_MpiRecv(w, NULL, 1016, 0, 7, 5, 64);
    OTF2_EvtWriter_Leave(w, NULL, 1016, RECV);
    OTF2_EvtWriter_Enter(w, NULL, 1021, ALLRED);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 1021);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 1030, OTF2_COLLECTIVE_OP_ALLREDUCE, 7, OTF2_UNDEFINED_UINT32, 8, 8);
    OTF2_EvtWriter_Leave(w, NULL, 1030, ALLRED);
    OTF2_EvtWriter_Enter(w, NULL, 1031, FIN); OTF2_EvtWriter_Leave(w, NULL, 1033, FIN);
    OTF2_Archive_CloseEvtWriter(a, w);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, 100));
    OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, 200));
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000, 1000, 100, OTF2_UNDEFINED_TIMESTAMP);
    const char* s[] = { "", "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Finalize", "foo",
                        "node", "rank 0", "rank 1", "thread", "MPI_COMM_WORLD" };
    for (int i = 0; i < 12; i++) OTF2_GlobalDefWriter_WriteString(g, i, s[i]);
    for (int r = INIT; r <= FIN; r++)
        OTF2_GlobalDefWriter_WriteRegion(g, r, r + 1, r + 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, FOO, 6, 6, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 7, 7, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 8, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, 9, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 100, 10, OTF2_LOCATION_TYPE_CPU_THREAD, 13, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 200, 10, OTF2_LOCATION_TYPE_CPU_THREAD, 11, 1);
    uint64_t locs[] = { 100, 200 }, ranks[] = { 0, 1 };
    OTF2_GlobalDefWriter_WriteGroup(g, 3, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, locs);
    OTF2_GlobalDefWriter_WriteGroup(g, 4, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, ranks);
    OTF2_GlobalDefWriter_WriteComm(g, 7, 11, 4, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    return OTF2_Archive_Close(a) != OTF2_SUCCESS;
}
