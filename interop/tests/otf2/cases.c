/* Small OTF2 archives written through libotf2 itself, each holding one thing the importer
 * must refuse or take with care (interop/tests/otf2_import.rs). Ticks are ns, offset 0.
 *   cases DIR CASE PEER   (writes DIR/c.otf2)
 * Rank 0: MPI_Init [10,20], the CASE's call(s) from 30, MPI_Finalize [100,110]. PEER is the
 * rank the call's event names (7: outside a 1-rank world). CASE:
 *   send    MPI_Send, MpiSend to PEER on the world (event 3)
 *   recv    MPI_Recv, MpiRecv from PEER (event 3)
 *   isend   MPI_Isend, MpiIsend to PEER, request 1 (event 3); MPI_Wait, MpiIsendComplete
 *   irecv   MPI_Irecv, MpiIrecvRequest 1; MPI_Wait, MpiIrecv from PEER (event 6)
 *   root    MPI_Bcast, MpiCollectiveEnd with root PEER (event 4)
 *   member  no call; the definitions' communicator 2 lists ranks 0 and PEER
 *   team    no call; communicator 3 is an OpenMP thread team of threads 0 to 3 (group of
 *           paradigm OpenMP, as Score-P writes them for hybrid runs)
 *   subsend 2 ranks; MPI_Send, MpiSend to PEER on communicator 2 = {0} (event 3)
 *   half    2 ranks; rank 1 has no events (its event file is opened and closed empty)
 *   empty   2 ranks, neither with events
 *   subcoll 4 ranks; communicator 2 = {0, 1, 2}; ranks 0 and 1 call MPI_Allreduce on it
 *           (MpiCollectiveEnd, event 4); rank 2 has no events; rank 3 only MPI_Init and
 *           MPI_Finalize. PEER unused
 *   tosub   the same ranks and communicator; rank 0 calls MPI_Send, MpiSend to PEER on
 *           communicator 2 (event 3), rank 1 only MPI_Init and MPI_Finalize
 *   subcreate the same ranks and communicator; ranks 0 and 1 call MPI_Comm_split, a
 *           CREATE_HANDLE MpiCollectiveEnd on it (event 4), as Score-P records a creation
 *   subdef  the same ranks and communicator, which no event uses
 *   toworld 3 ranks; rank 0 calls MPI_Send, MpiSend to PEER on the world (event 3); rank 2
 *           has no events
 *   fromworld 3 ranks; rank 0 calls MPI_Recv, MpiRecv from PEER on the world (event 3); rank
 *           2 has no events
 *   worldcoll 3 ranks; ranks 0 and 1 call MPI_Allreduce on the world (event 4); rank 2 has
 *           no events */
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

static OTF2_FlushType pre(void* u, OTF2_FileType t, OTF2_LocationRef l, void* c, bool f) {
    return OTF2_FLUSH;
}
static OTF2_FlushCallbacks flush = { pre, NULL };

enum { INIT, SEND, RECV, ISEND, IRECV, WAIT, BCAST, FIN, ALLREDUCE, SPLIT, NREGIONS };

static void call(OTF2_EvtWriter* w, const char* c, uint32_t peer) {
    if (!strcmp(c, "send") || !strcmp(c, "subsend") || !strcmp(c, "tosub") || !strcmp(c, "toworld")) {
        OTF2_EvtWriter_Enter(w, NULL, 30, SEND);
        OTF2_EvtWriter_MpiSend(w, NULL, 30, peer, strcmp(c, "send") && strcmp(c, "toworld") ? 2 : 0, 1, 8);
        OTF2_EvtWriter_Leave(w, NULL, 40, SEND);
    } else if (!strcmp(c, "recv") || !strcmp(c, "fromworld")) {
        OTF2_EvtWriter_Enter(w, NULL, 30, RECV);
        OTF2_EvtWriter_MpiRecv(w, NULL, 40, peer, 0, 1, 8);
        OTF2_EvtWriter_Leave(w, NULL, 40, RECV);
    } else if (!strcmp(c, "isend")) {
        OTF2_EvtWriter_Enter(w, NULL, 30, ISEND);
        OTF2_EvtWriter_MpiIsend(w, NULL, 30, peer, 0, 1, 8, 1);
        OTF2_EvtWriter_Leave(w, NULL, 40, ISEND);
        OTF2_EvtWriter_Enter(w, NULL, 50, WAIT);
        OTF2_EvtWriter_MpiIsendComplete(w, NULL, 60, 1);
        OTF2_EvtWriter_Leave(w, NULL, 60, WAIT);
    } else if (!strcmp(c, "irecv")) {
        OTF2_EvtWriter_Enter(w, NULL, 30, IRECV);
        OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 30, 1);
        OTF2_EvtWriter_Leave(w, NULL, 40, IRECV);
        OTF2_EvtWriter_Enter(w, NULL, 50, WAIT);
        OTF2_EvtWriter_MpiIrecv(w, NULL, 60, peer, 0, 1, 8, 1);
        OTF2_EvtWriter_Leave(w, NULL, 60, WAIT);
    } else if (!strcmp(c, "root")) {
        OTF2_EvtWriter_Enter(w, NULL, 30, BCAST);
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 30);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 40, OTF2_COLLECTIVE_OP_BCAST, 0, peer, 8, 8);
        OTF2_EvtWriter_Leave(w, NULL, 40, BCAST);
    } else if (!strcmp(c, "subcreate")) {
        OTF2_EvtWriter_Enter(w, NULL, 30, SPLIT);
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 30);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 40, OTF2_COLLECTIVE_OP_CREATE_HANDLE, 2, OTF2_UNDEFINED_UINT32, 0, 0);
        OTF2_EvtWriter_Leave(w, NULL, 40, SPLIT);
    } else if (!strcmp(c, "subcoll") || !strcmp(c, "worldcoll")) {
        OTF2_EvtWriter_Enter(w, NULL, 30, ALLREDUCE);
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 30);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 40, OTF2_COLLECTIVE_OP_ALLREDUCE, strcmp(c, "subcoll") ? 0 : 2,
                                        OTF2_UNDEFINED_UINT32, 8, 8);
        OTF2_EvtWriter_Leave(w, NULL, 40, ALLREDUCE);
    }
}

int main(int argc, char** argv) {
    if (argc != 4) return 2;
    const char* c = argv[2];
    uint32_t peer = (uint32_t)strtoul(argv[3], NULL, 10);
    int two = !strcmp(c, "subsend") || !strcmp(c, "half") || !strcmp(c, "empty");
    int sub = !strcmp(c, "subcoll") || !strcmp(c, "tosub") || !strcmp(c, "subdef") || !strcmp(c, "subcreate");
    int three = !strcmp(c, "toworld") || !strcmp(c, "fromworld") || !strcmp(c, "worldcoll");
    uint64_t n = sub ? 4 : three ? 3 : two ? 2 : 1;
    /* The rank without events, and the ranks making the case's call. */
    uint64_t none = n > 2 ? 2 : 1;
    int has_none = n > 2 || !strcmp(c, "half");
    OTF2_Archive* a = OTF2_Archive_Open(argv[1], "c", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) return 1;
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    for (uint64_t r = 0; r < n; r++) {
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, r);
        if (strcmp(c, "empty") && !(has_none && r == none)) {
            OTF2_EvtWriter_Enter(w, NULL, 10, INIT);
            OTF2_EvtWriter_Leave(w, NULL, 20, INIT);
            int both = !strcmp(c, "subcoll") || !strcmp(c, "worldcoll") || !strcmp(c, "subcreate");
            if (r == 0 || (r == 1 && both)) call(w, c, peer);
            OTF2_EvtWriter_Enter(w, NULL, 100, FIN);
            OTF2_EvtWriter_Leave(w, NULL, 110, FIN);
        }
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    for (uint64_t r = 0; r < n; r++) OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, r));
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 1000, OTF2_UNDEFINED_TIMESTAMP);
    const char* s[] = { "", "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
                        "MPI_Bcast", "MPI_Finalize", "node", "rank", "thread", "MPI_COMM_WORLD", "comm",
                        "MPI_Allreduce", "MPI_Comm_split" };
    for (int i = 0; i < 16; i++) OTF2_GlobalDefWriter_WriteString(g, i, s[i]);
    for (int r = 0; r < NREGIONS; r++) {
        uint32_t name = r == ALLREDUCE ? 14 : r == SPLIT ? 15 : r + 1;
        OTF2_GlobalDefWriter_WriteRegion(g, r, name, name, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 9, 9, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t ranks[] = { 0, 1, 2, 3 };
    for (uint64_t r = 0; r < n; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 10, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, 11, OTF2_LOCATION_TYPE_CPU_THREAD, 0, r);
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, ranks);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, ranks);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 12, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    if (!strcmp(c, "member") || !strcmp(c, "subsend")) {
        uint64_t members[] = { 0, peer };
        uint32_t count = strcmp(c, "member") ? 1 : 2;
        OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        count, members);
        OTF2_GlobalDefWriter_WriteComm(g, 2, 13, 2, 0, OTF2_COMM_FLAG_NONE);
    }
    if (!strcmp(c, "team")) {
        uint64_t threads[] = { 0, 1, 2, 3 };
        OTF2_GlobalDefWriter_WriteGroup(g, 3, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE,
                                        4, threads);
        OTF2_GlobalDefWriter_WriteComm(g, 3, 13, 3, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    }
    if (sub) {
        OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 3, ranks);
        OTF2_GlobalDefWriter_WriteComm(g, 2, 13, 2, 0, OTF2_COMM_FLAG_NONE);
    }
    return OTF2_Archive_Close(a) != OTF2_SUCCESS;
}
