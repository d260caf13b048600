//! The MPI functions the importer knows by their dumpi function label, and how each is taken:
//! made a record, folded into the computation around it (a call without communication), or
//! refused. A label not listed is refused: its fields' layout is not known, so the records
//! after it could not be found either.

/// What the importer does with a function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Take {
    /// Becomes a psins record.
    Record,
    /// Read and dropped; its time counts as computation (docs/interop-dumpi.md).
    Fold,
}

/// (label, MPI name, what is done).
const KNOWN: &[(u16, &str, Take)] = &[
    (0, "MPI_Send", Take::Record),
    (1, "MPI_Recv", Take::Record),
    (2, "MPI_Get_count", Take::Fold),
    (3, "MPI_Bsend", Take::Record),
    (4, "MPI_Ssend", Take::Record),
    (5, "MPI_Rsend", Take::Record),
    (8, "MPI_Isend", Take::Record),
    (9, "MPI_Ibsend", Take::Record),
    (10, "MPI_Issend", Take::Record),
    (11, "MPI_Irsend", Take::Record),
    (12, "MPI_Irecv", Take::Record),
    (13, "MPI_Wait", Take::Record),
    (14, "MPI_Test", Take::Record),
    (15, "MPI_Request_free", Take::Record),
    (16, "MPI_Waitany", Take::Record),
    (17, "MPI_Testany", Take::Record),
    (18, "MPI_Waitall", Take::Record),
    (19, "MPI_Testall", Take::Record),
    (20, "MPI_Waitsome", Take::Record),
    (21, "MPI_Testsome", Take::Record),
    (22, "MPI_Iprobe", Take::Record),
    (23, "MPI_Probe", Take::Record),
    (26, "MPI_Send_init", Take::Record),
    (27, "MPI_Bsend_init", Take::Record),
    (28, "MPI_Ssend_init", Take::Record),
    (29, "MPI_Rsend_init", Take::Record),
    (30, "MPI_Recv_init", Take::Record),
    (31, "MPI_Start", Take::Record),
    (32, "MPI_Startall", Take::Record),
    (33, "MPI_Sendrecv", Take::Record),
    (35, "MPI_Type_contiguous", Take::Fold),
    (43, "MPI_Type_size", Take::Fold),
    (46, "MPI_Type_commit", Take::Fold),
    (47, "MPI_Type_free", Take::Fold),
    (52, "MPI_Barrier", Take::Record),
    (53, "MPI_Bcast", Take::Record),
    (54, "MPI_Gather", Take::Record),
    (55, "MPI_Gatherv", Take::Record),
    (56, "MPI_Scatter", Take::Record),
    (57, "MPI_Scatterv", Take::Record),
    (58, "MPI_Allgather", Take::Record),
    (59, "MPI_Allgatherv", Take::Record),
    (60, "MPI_Alltoall", Take::Record),
    (61, "MPI_Alltoallv", Take::Record),
    (62, "MPI_Reduce", Take::Record),
    (65, "MPI_Allreduce", Take::Record),
    (67, "MPI_Scan", Take::Record),
    (81, "MPI_Comm_size", Take::Fold),
    (84, "MPI_Comm_dup", Take::Record),
    (86, "MPI_Comm_split", Take::Record),
    (87, "MPI_Comm_free", Take::Record),
    (82, "MPI_Comm_rank", Take::Fold),
    (100, "MPI_Dims_create", Take::Fold),
    (115, "MPI_Get_version", Take::Fold),
    (122, "MPI_Wtime", Take::Fold),
    (123, "MPI_Wtick", Take::Fold),
    (124, "MPI_Init", Take::Record),
    (125, "MPI_Finalize", Take::Record),
    (126, "MPI_Initialized", Take::Fold),
    (127, "MPI_Abort", Take::Record),
    (171, "MPI_Init_thread", Take::Record),
    (173, "MPI_Query_thread", Take::Fold),
    (202, "MPI_Finalized", Take::Fold),
];

/// Some names of labels that are refused, for the message.
const REFUSED: &[(u16, &str)] = &[
    (24, "MPI_Cancel"),
    (34, "MPI_Sendrecv_replace"),
    (63, "MPI_Op_create"),
    (66, "MPI_Reduce_scatter"),
    (85, "MPI_Comm_create"),
    (99, "MPI_Cart_create"),
    (128, "MPI_Pcontrol"),
    (291, "function entry (-finstrument-functions)"),
    (292, "function exit (-finstrument-functions)"),
];

/// How `label` is taken, or None when it is refused.
pub fn take(label: u16) -> Option<Take> {
    KNOWN.iter().find(|k| k.0 == label).map(|k| k.2)
}

/// The function's name for messages.
pub fn name(label: u16) -> String {
    KNOWN
        .iter()
        .map(|k| (k.0, k.1))
        .chain(REFUSED.iter().copied())
        .find(|k| k.0 == label)
        .map(|k| k.1.to_string())
        .unwrap_or_else(|| format!("dumpi function label {label}"))
}
